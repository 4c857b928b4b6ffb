"""The fitted network: a DAG plus one fitted factor per node; exact inference; pgmpy export.

The class is a parent of every feature; each feature may have further feature
parents. ``log P(c, x)`` of a complete row is ``log P(c)`` plus every
factor's log term (table look-ups and closed-form densities, no loop over
rows). Rows with missing cells, of any kind and in any DAG (naive Bayes, TAN,
k-dependence, ...), are marginalised exactly by variable elimination over the
features given the class (:meth:`FittedNetwork.marginal`), vectorised over
rows and classes: only the nodes whose family holds a missing cell take part,
continuous nodes joined by missing values pass Gaussian messages to one
another, and the discrete variables are summed out in a min-weight order
(:mod:`bnclassify.elimination`), so the cost grows with the structure's width,
not with the product of the missing cells' states.
"""

from __future__ import annotations

import itertools
import math
import operator
from functools import cached_property

import numpy as np

from ._native import table_sums
from .data import MISSING, kind_of
from .elimination import (
    BLOCK_CELLS,
    ENUMERATED_GROUP_CELLS,
    ENUMERATED_GROUP_STATES,
    ENUMERATED_STATES,
    GROUPED_STATES,
    MAX_TABLE_CELLS,
    StateSum,
    eliminate,
    elimination_order,
    summed_rows,
    table_cells,
)
from .factors import Categorical, ClassTable, Factor, Unobserved, node_from_spec
from .parameters import Laplace, log_class_prior, log_conditional
from .state import acyclic, float_array, positions, probability_rows, require
from .stats import MAX_FAMILY_CELLS, MAX_NETWORK_CELLS, SmoothedTables

#: Prepared sums (``bnclassify.elimination.StateSum``) a network keeps, the oldest
#: dropped first: one per variable of many states and set of tables it is summed out of.
SUM_CACHE_SIZE = 32


def fit_network(stats, schema, parents, alpha, smoothing=None, rng=None) -> FittedNetwork:
    """Fit one factor per node of ``schema`` given each feature's feature parents.

    Parameters
    ----------
    stats : TrainingCounts
    schema : TableSchema
    parents : list of tuple of int
        Feature parents of each column, in the order of each table's hierarchy
        (the class first, then these).
    alpha : float
        The class prior's pseudo-count, and every categorical table's unless
        ``smoothing`` says otherwise.
    smoothing : bnclassify.parameters.Smoothing, optional
        How the categorical tables are made from their counts (default: additive
        with ``alpha``). The tables of every categorical node are made in one call
        (:class:`~bnclassify.stats.SmoothedTables`).
    rng : numpy.random.Generator, optional
        For a smoothing that samples.

    Returns
    -------
    FittedNetwork
    """
    unobserved = set(schema.unobserved)  # no observed training value: nothing to learn
    discrete = [
        columns[0]
        for columns, spec in schema.nodes
        if kind_of(spec).discrete and columns[0] not in unobserved
    ]
    stats.prefetch_families(discrete, parents)  # a tree's families in one pass, not one each
    additive = isinstance(smoothing, Laplace) and float(smoothing.alpha) == alpha
    if smoothing is not None and not additive:
        tables = [(j, parents[j]) for j in discrete if all(schema.discrete[p] for p in parents[j])]
        stats = SmoothedTables(stats, smoothing, tables, rng)
    factors, names = [], schema.names
    for columns, spec in schema.nodes:
        node_parents = (
            tuple(parents[columns[0]])  # a node of one column (all but a multinomial group)
            if len(columns) == 1
            else tuple(p for j in columns for p in parents[j])
        )
        factor = Unobserved() if unobserved.issuperset(columns) else node_from_spec(spec)
        factors.append(factor.fit_family(stats, columns, node_parents, alpha, names))
    return FittedNetwork(log_class_prior(stats.classes, alpha), parents, factors)


def fit_general_network(counts, schema, parents, alpha) -> FittedNetwork:
    """Fit a network in which the class is an ordinary node, every table from its family's counts.

    Variables are the schema's columns ``0 .. m - 1`` and the class, ``m``
    (:class:`~bnclassify.stats.VariableCounts`' last variable). Each table is
    ``(N + alpha) / (N_parents + r alpha)`` from the counts of the rows
    observing its family. A feature whose parents include the class is a
    class-rooted node (its table indexed by the class first); any other
    feature's table repeats for every class (``class_free``); a class with
    parents gets a :class:`~bnclassify.factors.ClassTable`, a class without
    its smoothed frequencies as ``log_prior``.

    Parameters
    ----------
    counts : bnclassify.stats.VariableCounts
    schema : TableSchema
        Every column a table (categorical or binned), or never observed.
    parents : list of tuple of int
        The parents of each variable, ``m + 1`` entries, the class's last.
    alpha : float

    Returns
    -------
    FittedNetwork

    Examples
    --------
    >>> import pandas as pd
    >>> from bnclassify.data import TableSchema
    >>> from bnclassify.stats import VariableCounts
    >>> X = pd.DataFrame({"a": [0, 1, 1, 0], "b": [1, 1, 0, 0]})
    >>> schema, frame = TableSchema.learn(X)
    >>> codes = schema.encode(frame)[0]
    >>> counts = VariableCounts.from_rows(codes, [0, 1, 1, 0], schema.cards, 2)
    >>> network = fit_general_network(counts, schema, [(2,), (), (1,)], 1.0)
    >>> network.class_free, network.class_factor.parent_positions
    ((1,), (1,))
    """
    m, n_classes = schema.n_features, int(counts.cards[-1])
    names, unobserved = schema.names, set(schema.unobserved)
    _check_table_cells(counts, parents, m, unobserved, names + ["the class"])
    factors, free, feature_parents = [], [], []
    for columns, spec in schema.nodes:
        (j,) = columns
        family = tuple(parents[j])
        own = tuple(p for p in family if p != m)
        feature_parents.append(own)
        if j in unobserved:
            factors.append(Unobserved.of_column(j, names, n_classes))
            free.append(j)
            continue
        rooted = m in family
        axes = [m, *own, j] if rooted else [*own, j]
        table = log_conditional(counts.table(axes), alpha)
        if not rooted:
            table = np.broadcast_to(table, (n_classes, *table.shape)).copy()
            free.append(j)
        factors.append(type(node_from_spec(spec)).from_log_table(table, j, own, names))
    class_parents = tuple(parents[m])
    if not class_parents:
        prior = log_class_prior(counts.table([m]), alpha)
        return FittedNetwork(prior, feature_parents, factors, class_free=free)
    table = np.moveaxis(log_conditional(counts.table([*class_parents, m]), alpha), -1, 0)
    class_factor = ClassTable.from_log_table(table, class_parents, names)
    return FittedNetwork(np.zeros(n_classes), feature_parents, factors, class_factor, free)


def _check_table_cells(counts, parents, m, unobserved, names):
    """Refuse, before any is built, a family table of more than MAX_FAMILY_CELLS cells or
    tables of more than MAX_NETWORK_CELLS together, a family without the class (``m``)
    counted once per class as it is kept; the largest families named."""
    cards, n_classes = counts.cards, int(counts.cards[-1])
    sizes = {}
    for j, family in enumerate(parents):
        if j in unobserved:
            continue
        copies = 1 if j == m or m in family else n_classes
        sizes[j] = math.prod(int(cards[v]) for v in (*family, j)) * copies
        if sizes[j] > MAX_FAMILY_CELLS:
            kept = f" (kept once per class: {copies})" if copies > 1 else ""
            raise ValueError(
                f"The table of {names[j]!r} given {[names[v] for v in family]} would have "
                f"{sizes[j]:,} cells{kept}, more than MAX_FAMILY_CELLS = {MAX_FAMILY_CELLS:,}; "
                "limit the parents (max_parents) or the states of these columns."
            )
    total = sum(sizes.values())
    if total > MAX_NETWORK_CELLS:
        largest = sorted(sizes, key=sizes.get, reverse=True)[:3]
        named = ", ".join(
            f"{names[j]!r} given {len(parents[j])} parents ({sizes[j]:,})" for j in largest
        )
        raise ValueError(
            f"The network's tables would hold {total:,} cells ({total * 8 / 2**30:.1f} GB), "
            f"more than MAX_NETWORK_CELLS = {MAX_NETWORK_CELLS:,}; the largest: {named}. "
            "Limit the parents (max_parents), or use a score that adds fewer (score_type='bic', "
            "or 'bds' rather than 'bdeu')."
        )


class FittedNetwork:
    """The class prior and one fitted factor per node of a Bayesian network classifier.

    Parameters
    ----------
    log_prior : ndarray of shape (n_classes,)
        log P(c).
    parents : list of tuple of int
        Feature parents of each feature (column positions), the class excluded.
    factors : list of Factor
        One fitted factor per node; a node models one column, or a group of
        columns with no feature parents.
    class_factor : ClassTable, optional
        The class's own table given its feature parents, ``log P(c | x_parents)``,
        in a general network where the class is an ordinary node; ``log_prior``
        is then 0. Default: the class has no parents and its term is ``log_prior``.
    class_free : tuple of int, default=()
        Columns whose node does not depend on the class (a general network's
        node that is not a child of the class): their tables repeat one table
        for every class. It changes no probability, only what the node's
        parameters count (:attr:`n_parameters`) and how pgmpy receives it.

    Examples
    --------
    >>> import numpy as np
    >>> from bnclassify import TAN
    >>> from bnclassify.datasets import load_p450
    >>> X, y = load_p450(return_X_y=True)
    >>> network = TAN().fit(X, y).compiled_
    >>> network.n_features, network.is_forest, network.factors[0].kind
    (8, True, 'categorical')
    """

    def __init__(self, log_prior, parents, factors, class_factor=None, class_free=()):
        self.log_prior = np.asarray(log_prior, dtype=float)
        self.parents = [tuple(p) for p in parents]
        self.factors = list(factors)
        self.class_factor = class_factor
        self.class_free = tuple(int(j) for j in class_free)
        self.node_of = {}
        for k, factor in enumerate(self.factors):
            for j in factor.column_positions:
                self.node_of[j] = k

    def __getstate__(self):
        # the stacked tables (_table_gather) are a copy of the factors' tables: not pickled,
        # rebuilt by the first prediction
        state = dict(self.__dict__)
        state.pop("_gather_cache", None)
        state.pop("_sum_cache", None)
        return state

    # -- the layout inference reads (derived from the factors, computed once) --------------
    @property
    def _nodes(self) -> list:
        """What inference reads: every node's term, the class's own last (it models no
        column). Read from ``factors`` each time: a fit may replace a factor in place
        (a left-out attribute refitted without the class)."""
        return self.factors + ([] if self.class_factor is None else [self.class_factor])

    @cached_property
    def _mentions(self) -> list:
        """The structural nodes whose family holds each column (what a missing cell touches)."""
        mentions = [[] for _ in self.parents]
        for k, factor in enumerate(self._nodes):
            if factor.structural:
                for j in {*factor.column_positions, *factor.parent_positions}:
                    mentions[j].append(k)
        return mentions

    def _family_neighbours(self, column) -> tuple:
        """The columns in a family with ``column``, through its structural nodes (the cells
        :meth:`_joined_groups` joins to a missing one). Kept per column once asked (a wide
        network's few missing columns, not all of its columns)."""
        known = self.__dict__.setdefault("_neighbours", {})
        found = known.get(column)
        if found is None:
            nodes = self._nodes
            found = tuple(
                {
                    v
                    for k in self._mentions[column]
                    for v in (*nodes[k].column_positions, *nodes[k].parent_positions)
                }
            )
            known[column] = found
        return found

    @cached_property
    def _family_incidence(self) -> np.ndarray:
        """``(columns, nodes)``: 1 where the column is in the node's family (itself or a
        parent); a row's missing cells times it count each node's missing family cells."""
        nodes = self._nodes
        # bytes, not doubles: a wide network's table is mostly zeros, written (and its pages
        # touched) once per network; the rows a call reads are taken as doubles
        incidence = np.zeros((len(self.parents), len(nodes)), dtype=np.uint8)
        families = [(*f.column_positions, *f.parent_positions) for f in nodes]
        sizes = [len(family) for family in families]
        # one index array (not an array of pairs, converted tuple by tuple)
        columns = np.fromiter(itertools.chain.from_iterable(families), np.intp, sum(sizes))
        incidence[columns, np.repeat(np.arange(len(nodes)), sizes)] = 1
        return incidence

    @cached_property
    def _one_state_columns(self) -> list:
        """Columns of a discrete node with one state (e.g. a binned column without a cut):
        summing such a missing cell out is reading it as its state."""
        return [
            j
            for f in self.factors
            if f.structural and f.discrete and getattr(f, "n_states", 0) == 1
            for j in f.column_positions
        ]

    @cached_property
    def _structural_columns(self) -> list:
        return [j for f in self.factors if f.structural for j in f.column_positions]

    @cached_property
    def _children_before_parents(self) -> list | None:
        """``(column, its structural children's columns)`` with every child before its
        parents, for :meth:`_needed`; None where a structural node holds several columns."""
        if any(f.structural and len(f.column_positions) > 1 for f in self.factors):
            return None
        structural = set(self._structural_columns)
        children = {j: [] for j in structural}
        for j in structural:
            for p in self.parents[j]:
                if p in structural:
                    children[p].append(j)
        factor = self.class_factor
        class_parents = set() if factor is None else set(factor.parent_positions)
        order, seen = [], set()

        def visit(j):  # depth first: a column after all of its children
            seen.add(j)
            for c in children[j]:
                if c not in seen:
                    visit(c)
            order.append(j)

        for j in sorted(structural):
            if j not in seen:
                visit(j)
        return [(j, children[j], j in class_parents) for j in order]

    def _needed(self, missing) -> np.ndarray:
        """The missing cells that summing out must eliminate, per row: a missing discrete
        cell none of whose children is observed or needed sums to 1 (with its node), so rows
        that differ only in such cells share one elimination plan; a missing continuous cell
        is always kept (its messages decide), and so is a parent of the class (the class
        takes part in every term)."""
        layout = self._children_before_parents
        if layout is None:
            return missing
        needed = missing.copy()
        holes = missing.any(axis=0)
        for j, children, parents_class in layout:
            if parents_class or not holes[j]:  # a column missing in no row is needed in none
                continue
            if children and self.factors[self.node_of[j]].discrete:
                kept = (~missing[:, children] | needed[:, children]).any(axis=1)
                needed[:, j] &= kept
            elif self.factors[self.node_of[j]].discrete:
                needed[:, j] = False
        return needed

    @cached_property
    def _cards(self) -> tuple:
        return tuple(
            getattr(self.factors[self.node_of[j]], "n_states", 1) for j in range(len(self.parents))
        )

    @classmethod
    def from_log_tables(cls, log_prior, parents, log_tables, names=None):
        """An all-categorical network from log CPTs shaped ``(C, *parent cards, r_i)``."""
        names = names if names is not None else [f"x{i}" for i in range(len(log_tables))]
        factors = [
            Categorical.from_log_table(table, i, parents[i], names)
            for i, table in enumerate(log_tables)
        ]
        return cls(log_prior, parents, factors)

    @property
    def nodes(self) -> list:
        """Every node's fitted factor: the features' (:attr:`factors`), then the class's own
        table when it has parents (``class_factor``). ``log P(c, x)`` is
        ``log_prior`` plus one term of each."""
        return list(self._nodes)

    @property
    def n_classes(self) -> int:
        return len(self.log_prior)

    @property
    def column_names(self) -> list:
        """The name of each column, as its node holds it (``x{j}`` for a column without one)."""
        names = [f"x{j}" for j in range(self.n_features)]
        for factor in self.factors:
            for j, name in zip(factor.column_positions, factor.columns_, strict=True):
                names[j] = name
        return names

    @property
    def n_features(self) -> int:
        return len(self.parents)

    @property
    def cards(self) -> list:
        """Number of states of each discrete column (1 for the others)."""
        return list(self._cards)

    @property
    def is_forest(self) -> bool:
        """True when every feature has at most one feature parent."""
        return all(len(p) <= 1 for p in self.parents)

    @property
    def n_parameters(self) -> int:
        """Free parameters: the class's (``C - 1``, or its table's) plus every factor's (a node
        in ``class_free`` counts its one table, not one per class)."""
        own = self.n_classes - 1 if self.class_factor is None else self.class_factor.n_parameters_
        free = set(self.class_free)
        return int(
            own
            + sum(
                f.n_parameters_ // (self.n_classes if free & set(f.column_positions) else 1)
                for f in self.factors
            )
        )

    def factor_of(self, column):
        """The factor modelling ``column``."""
        return self.factors[self.node_of[column]]

    # -- inference ---------------------------------------------------------------------
    def joint_log_likelihood(self, codes, values=None) -> np.ndarray:
        """log P(c, x_observed) for every row and class, shape ``(n_rows, n_classes)``.

        ``codes`` holds -1 for every missing cell (a continuous column's dummy
        code included), ``values`` the continuous columns (``None`` when there
        are none). Rows with missing cells are summed out exactly
        (:meth:`marginal`).
        """
        codes = np.asarray(codes)
        one = self._one_state_columns  # a missing cell of one state is that state: no sum
        if one and (codes[:, one] == MISSING).any():
            codes = codes.copy()
            codes[:, one] = np.maximum(codes[:, one], 0)
        # a non-structural node (e.g. an unobserved column's) reads a missing cell as 0
        if not (codes[:, self._structural_columns] == MISSING).any():
            return self.complete_rows(codes, values)
        # every row at once: each factor's term is computed once, for the rows whose family
        # is observed (complete rows included), not once for the complete rows and again
        return self.marginal(codes, values)

    def complete_rows(self, codes, values=None) -> np.ndarray:
        """log P(c, x) of rows without missing cells."""
        out = np.broadcast_to(self.log_prior, (len(codes), self.n_classes)).copy()
        gather = self._table_gather()
        tables = gather["nodes"]
        every = np.arange(len(tables))
        if len(tables) > 1 and self._add_table_terms(out, codes, every, None, gather):
            done = set(tables.tolist())  # every table's term read in one gather
        else:
            done = set()
        for k, factor in enumerate(self._nodes):
            if factor.informative and k not in done:  # an uninformative node's term is 0
                out += factor.log_terms(codes, values)
        return out

    def _table_gather(self) -> dict:
        """Every table node's log terms in one array, for :meth:`_add_table_terms`.

        ``nodes``: the positions (in ``_nodes``) of the nodes whose term is a look-up in a
        table indexed by the class and their discrete family (a
        :class:`~bnclassify.factors.Categorical` and its subclasses, a class table with
        parents); ``cells``: their tables stacked, one row per cell of any table, one
        column per class, and a last row of zeros (the term of a node left out of a row);
        ``offsets``: each table's first row; ``family`` and ``strides``: each table's
        family columns and their strides in its flat index (padded with column 0, stride
        0). Built once per set of tables (held with them, compared by identity).
        """
        nodes = self._nodes
        made = self.__dict__.get("_gather_cache")
        # the same factors holding the same tables: read at every call of every prediction,
        # so compared by identity before any family is computed
        if (
            made is not None
            and len(made[0]) == len(nodes)
            and all(map(operator.is_, made[0], nodes))  # lengths equal: checked above
            and all(map(operator.is_, map(_log_table_or_none, nodes), made[1]))
        ):
            return made[2]
        families = [(*f.discrete_parent_positions, *f.column_positions) for f in nodes]
        tables = [
            f.log_table_ if own and _looks_up_its_table(f) else None
            for f, own in zip(nodes, families, strict=True)
        ]
        kept = [k for k, t in enumerate(tables) if t is not None]
        width = max([len(families[k]) for k in kept] or [0])
        family = np.zeros((len(kept), width), dtype=np.intp)
        strides = np.zeros((len(kept), width), dtype=np.intp)
        offsets = np.zeros(len(kept), dtype=np.intp)
        cells, start = [], 0
        for i, k in enumerate(kept):
            table, own = tables[k], families[k]
            shape = table.shape[1:]
            family[i, : len(own)] = own
            strides[i, : len(own)] = np.cumprod((*shape[1:], 1)[::-1])[::-1]
            offsets[i] = start
            cells.append(table.reshape(table.shape[0], -1).T)
            start += cells[-1].shape[0]
        cells.append(np.zeros((1, self.n_classes)))
        gather = {
            "nodes": np.array(kept, dtype=np.intp),
            "cells": np.ascontiguousarray(np.concatenate(cells, axis=0)),
            "offsets": offsets,
            "family": family,
            "strides": strides,
            "used": np.unique(family[strides > 0]),
            "states": np.asarray(self._cards, dtype=np.intp),
        }
        held = tuple(map(_log_table_or_none, nodes))
        self.__dict__["_gather_cache"] = (tuple(nodes), held, gather)
        return gather

    def _add_table_terms(self, out, codes, which, left_out=None, gather=None) -> bool:
        """Add to ``out`` the log terms of the table nodes ``which`` (positions in
        :meth:`_table_gather`'s ``nodes``), every node and row in one gather: ``(rows,
        nodes)`` indices into the stacked tables, then a sum over the nodes. ``left_out``
        (``(rows, len(which))``): a node's term is 0 in those rows (its family need not be
        observed there; its cells are read, so they must be codes of their columns, e.g. a
        missing cell read as 0). Returns False, adding nothing, where a family column holds
        a code outside its column's states (a missing cell): the caller reads the nodes one
        by one, as before. ``gather``: :meth:`_table_gather`'s, when the caller has it.
        """
        gather = self._table_gather() if gather is None else gather
        family, strides = gather["family"][which], gather["strides"][which]
        offsets = gather["offsets"][which]
        used = gather["used"] if len(which) == len(gather["nodes"]) else None
        if used is None:
            used = np.unique(family[strides > 0])  # a padded axis has stride 0: not read
        if len(codes) and len(used):
            # every code a state of its column (not so: a missing cell, or codes not made by
            # the encoder), checked per column rather than per cell
            seen = codes[:, used]
            if seen.min() < 0 or (seen.max(axis=0) >= gather["states"][used]).any():
                return False
        n_tables = len(which)
        total = np.empty_like(out)
        # blocks of rows: the numpy version holds every node's cell of a block's rows
        step = max(1, BLOCK_CELLS // max(1, n_tables * self.n_classes))
        for start in range(0, len(codes), step):
            rows = slice(start, start + step)
            left = None if left_out is None else left_out[rows]
            total[rows] = table_sums(codes[rows], gather["cells"], family, strides, offsets, left)
        out += total
        return True

    def posterior_network(self, columns) -> FittedNetwork:
        """A network with this one's class posterior that reads only ``columns``.

        Every node outside ``columns`` becomes an uninformative node
        (:class:`~bnclassify.factors.Unobserved`: log term 0, not part of the
        structure). That leaves ``P(c | x)`` as it is when each such node's term is
        the same in every class and none of them is a parent of a node in
        ``columns`` (a selective KDB's left-out attributes, refitted independent of
        the class); then its cells need no summing out when missing, and prediction
        reads only the kept nodes. ``joint_log_likelihood`` of the result is this
        network's up to a per-row constant.

        Examples
        --------
        >>> from bnclassify import SKDB
        >>> from bnclassify.datasets import load_car
        >>> X, y = load_car(return_X_y=True)
        >>> model = SKDB(k=1).fit(X, y)
        >>> codes, _ = model.encode(X)
        >>> kept = [model.feature_names_.index(f) for f in model.selected_features_]
        >>> full = model.compiled_.joint_log_likelihood(codes)
        >>> part = model.compiled_.posterior_network(kept).joint_log_likelihood(codes)
        >>> bool(np.allclose(full - full.max(axis=1, keepdims=True),
        ...                  part - part.max(axis=1, keepdims=True)))
        True
        """
        kept = {int(j) for j in columns}
        # kept with the factors it was built from (held, so compared by identity): a network
        # predicted many times (each member of an ensemble) builds it, and its layout, once
        key = tuple(sorted(kept))
        made = self.__dict__.setdefault("_posteriors", {}).get(key)
        if made is not None and len(made[0]) == len(self.factors):
            if all(a is b for a, b in zip(made[0], self.factors, strict=True)):
                return made[1]
        names = self.column_names
        factors, parents = [], []
        for j, own in enumerate(self.parents):
            parents.append(own if j in kept else ())
        for factor in self.factors:
            if set(factor.column_positions) <= kept or not factor.informative:
                factors.append(factor)
                continue
            for j in factor.column_positions:
                factors.append(Unobserved.of_column(j, names, self.n_classes))
        network = FittedNetwork(self.log_prior, parents, factors)
        network._table_gather()  # its tables stacked now, not by its first prediction
        self._posteriors[key] = (tuple(self.factors), network)
        return network

    def marginal(self, codes, values=None) -> np.ndarray:
        """log P(c, x_observed) of rows with missing cells, in any DAG, by variable elimination.

        A factor whose family is observed in a row gives its log term, all rows
        at once (a complete row takes only these terms, so any rows may be
        passed). In an all-table network, a row whose needed missing cells have
        at most :data:`~bnclassify.elimination.ENUMERATED_STATES` joint states
        sums the other nodes' terms over every completion, all such rows in one
        gather per node. The rest is grouped by the row's pattern of missing cells,
        split into groups of cells no node joins; in an all-table network a group of
        at most :data:`~bnclassify.elimination.ENUMERATED_GROUP_STATES` joint states, or of
        at most :data:`~bnclassify.elimination.ENUMERATED_GROUP_CELLS` states times rows
        holding it, is summed over its completions (every such group of every row in one
        call), the others are planned once per group: the discrete nodes touching a missing
        cell give log potentials over its missing variables
        (:meth:`~bnclassify.factors.Categorical.log_potential`); the continuous
        nodes linked through missing continuous cells are integrated by their
        messages (:meth:`~bnclassify.factors.Factor.upward`), for each state of
        their missing discrete parents; a missing variable whose only potential
        is its own node is dropped (it sums to 1); the rest is summed out by
        ``bnclassify.elimination.eliminate`` in a min-weight order. The
        cost grows with the width of that order, not with the product of the
        missing cells' states; a pattern whose largest table exceeds
        :data:`~bnclassify.elimination.MAX_TABLE_CELLS` cells per row is
        refused before any is computed, with the cost in the message.
        """
        codes = np.asarray(codes)
        n = len(codes)
        missing = codes == MISSING
        structural = self._structural_columns
        out = np.broadcast_to(self.log_prior, (n, self.n_classes)).copy()
        holes = np.flatnonzero(missing.any(axis=0))
        # only rows with a missing cell have a node whose family is not observed: those rows
        # and nodes in one product (not a loop of masks), the complete rows not copied
        incomplete = np.flatnonzero(missing[:, holes].any(axis=1))
        touching = self._family_incidence[holes].astype(float)
        blocked = (missing[np.ix_(incomplete, holes)] @ touching) > 0
        filled = None  # the codes with every missing cell read as state 0
        subsets = {}  # the rows of each distinct mask, taken once for every factor sharing it
        gather = self._table_gather()
        tables = gather["nodes"]
        done = set()
        if len(tables) > 1:
            # every table's terms in one gather, those of the rows whose family is not
            # observed left out (a missing cell read as state 0 in the others' indices)
            filled = np.maximum(codes, 0)
            left_out = np.zeros((n, len(tables)), dtype=bool)
            left_out[incomplete] = blocked[:, tables]
            if self._add_table_terms(out, filled, np.arange(len(tables)), left_out, gather):
                done = set(tables.tolist())
        for k, factor in enumerate(self._nodes):
            if k in done:
                continue
            if not factor.structural:
                if factor.informative:
                    out += factor.log_terms(codes, values)
                continue
            rows = incomplete[blocked[:, k]]
            if not len(rows):
                out += factor.log_terms(codes, values)
            elif len(rows) == n:
                continue
            elif factor.discrete and not factor.continuous_parent_positions:
                # a table's terms of every row (a missing cell read as state 0), those of the
                # rows whose family is not observed left out: no subset of the table copied
                if filled is None:
                    filled = np.maximum(codes, 0)
                left_out = np.zeros(n, dtype=bool)
                left_out[rows] = True
                out += np.where(left_out[:, None], 0.0, factor.log_terms(filled, values))
            else:
                clear = np.ones(n, dtype=bool)
                clear[rows] = False
                key = clear.tobytes()
                if key not in subsets:
                    subsets[key] = codes[clear], _rows(values, clear)
                out[clear] += factor.log_terms(*subsets[key])
        if not len(incomplete):
            return out
        needed = self._needed(missing[incomplete])
        if self._all_tables:
            # rows whose needed cells have few joint states: every completion scored at once
            # (one gather per node for all such rows), not a plan per group of cells
            states = np.where(needed, self._cards, 1).prod(axis=1)
            few = states <= ENUMERATED_STATES
            if few.any():
                rows = incomplete[few]
                tables = blocked[few] & self._structural_nodes  # the others were read above
                out[rows] += self._enumerated(codes[rows], needed[few], tables, states[few])
                incomplete, needed = incomplete[~few], needed[~few]
                if not len(incomplete):
                    return out
        columns = [j for j in structural if needed[:, j].any()]
        patterns, inverse = np.unique(needed[:, columns], axis=0, return_inverse=True)
        inverse = inverse.ravel()
        by_pattern = np.argsort(inverse, kind="stable")
        bounds = np.cumsum(np.bincount(inverse, minlength=len(patterns)))[:-1]
        # no node joins two groups of a row's missing cells: each group is summed out alone,
        # planned once for every row that holds it, whatever the row's other groups (one
        # pattern per row otherwise: a wide table's rows each plan the same few cells again)
        rows_of = {}
        for pattern, rows in zip(patterns, np.split(incomplete[by_pattern], bounds), strict=True):
            for group in self._joined_groups([columns[j] for j in np.flatnonzero(pattern)]):
                rows_of.setdefault(group, []).append(rows)
        if self._all_tables:
            # a group of few joint states (a row of many needs several such groups): its
            # completions scored with the rest of such groups, in one call, not a plan each
            cards = self._cards
            few = [
                g
                for g in rows_of
                if (states := math.prod(cards[v] for v in g)) <= ENUMERATED_GROUP_STATES
                or states * sum(len(rows) for rows in rows_of[g]) <= ENUMERATED_GROUP_CELLS
            ]
            if few:
                rows, terms = self._enumerated_groups(codes, {g: rows_of.pop(g) for g in few})
                np.add.at(out, rows, terms)
        plans = {group: self._elimination_plan(set(group)) for group in rows_of}
        for group, plan in plans.items():  # every plan checked before any is computed
            if plan["cells"] > MAX_TABLE_CELLS:
                n_rows = sum(len(rows) for rows in rows_of[group])
                raise ValueError(self._too_costly(plan, n_rows))
        for group, plan in plans.items():
            rows = np.sort(np.concatenate(rows_of[group]))
            step = max(1, BLOCK_CELLS // plan["cells"])
            for start in range(0, len(rows), step):
                chunk = rows[start : start + step]
                out[chunk] += self._eliminated(plan, codes[chunk], _rows(values, chunk))
        return out

    @property
    def _structural_nodes(self) -> np.ndarray:
        return np.array([f.structural for f in self._nodes], dtype=bool)

    @property
    def _all_tables(self) -> bool:
        """Whether every structural node is a table over discrete columns only (its terms read
        codes alone), so a missing cell can be summed out by completing it."""
        return all(
            f.discrete and not f.continuous_parent_positions for f in self._nodes if f.structural
        )

    def _enumerated(self, codes, needed, blocked, states) -> np.ndarray:
        """log of the sum over every completion of each row's ``needed`` missing cells of the
        ``blocked`` nodes' terms (those whose family a missing cell touches), ``(n, C)``.

        ``states``: each row's number of completions (the product of its needed cells'
        states). A node whose own cell is missing and not needed sums to 1 (with the rest of
        its barren subtree, see :meth:`_needed`): its term is 0. Rows are taken a block of
        completions at a time.
        """
        out = np.empty((len(codes), self.n_classes))
        width = len(self._cards) + self.n_classes * (1 + blocked.shape[1])
        budget = max(1, BLOCK_CELLS // width)
        ends = np.cumsum(states)
        start = 0
        while start < len(codes):
            # at least one row per block, then as many as fit in the budget
            stop = max(
                start + 1,
                int(np.searchsorted(ends, ends[start] - states[start] + budget, side="right")),
            )
            block = slice(start, stop)
            out[block] = self._completions(
                codes[block], needed[block], blocked[block], states[block]
            )
            start = stop
        return out

    def _enumerated_groups(self, codes, groups) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`_enumerated` of groups of missing cells that no node joins to a row's
        other needed cells (``{group: [arrays of rows]}``): each (row, group) a row of its
        own, completing the group's cells and counting the nodes whose family holds one
        of them, so a row's groups add up to its sum. Returns the rows (one per pair, a
        row as often as it has groups) and their terms, ``(pairs, C)``."""
        n_columns, n_nodes = codes.shape[1], len(self._nodes)
        rows, needed, blocked, states = [], [], [], []
        for group, parts in groups.items():
            held = np.concatenate(parts)
            cells = np.zeros(n_columns, dtype=bool)
            cells[list(group)] = True
            touched = np.zeros(n_nodes, dtype=bool)
            touched[[k for j in group for k in self._mentions[j]]] = True
            rows.append(held)
            needed.append(np.broadcast_to(cells, (len(held), n_columns)))
            blocked.append(np.broadcast_to(touched, (len(held), n_nodes)))
            states.append(np.full(len(held), math.prod(self._cards[v] for v in group)))
        rows = np.concatenate(rows)
        terms = self._enumerated(
            codes[rows], np.concatenate(needed), np.concatenate(blocked), np.concatenate(states)
        )
        return rows, terms

    def _completions(self, codes, needed, blocked, states) -> np.ndarray:
        """:meth:`_enumerated` of one block of rows."""
        cards = np.asarray(self._cards, dtype=np.int64)
        # a node with a cell missing and not needed (its own, barren) sums to 1
        barren = (codes == MISSING) & ~needed
        left = np.flatnonzero(barren.any(axis=0))
        counted = blocked & ((barren[:, left] @ self._family_incidence[left].astype(float)) == 0)
        starts = np.concatenate([[0], np.cumsum(states)[:-1]])
        filled = np.asfortranarray(np.maximum(np.repeat(codes, states, axis=0), 0))
        # each needed cell's state in each of its row's completions (mixed radix), cell by cell
        radix = np.where(needed, cards, 1)
        strides = np.cumprod(radix, axis=1) // radix
        # a cell of one state (an unobserved column's dummy) reads 0 in every completion:
        # filled already, and writing it would cost as much as the cells of many states
        rows, columns = np.nonzero(needed & (cards > 1))
        repeats = states[rows]
        cell = np.repeat(np.arange(len(rows)), repeats)
        completion = np.arange(len(cell)) - np.repeat(np.cumsum(repeats) - repeats, repeats)
        at = starts[rows][cell] + completion
        filled[at, columns[cell]] = (completion // strides[rows, columns][cell]) % cards[
            columns[cell]
        ]
        terms = np.zeros((len(filled), self.n_classes))
        gather = self._table_gather()
        tables = gather["nodes"]
        read = np.flatnonzero(counted[:, tables].any(axis=0))  # positions in the gather
        done = set()
        if len(read) > 1:  # every counted table's terms in one gather
            left_out = ~np.repeat(counted[:, tables[read]], states, axis=0)
            if self._add_table_terms(terms, filled, read, left_out, gather):
                done = set(tables[read].tolist())
        for k in np.flatnonzero(counted.any(axis=0)):
            if k in done:
                continue
            node_terms = self._nodes[k].log_terms(filled, None)
            if counted[:, k].all():
                terms += node_terms
            else:  # 0 in the completions of the rows it does not count in
                terms += np.where(np.repeat(counted[:, k], states)[:, None], node_terms, 0.0)
        peak = np.maximum.reduceat(terms, starts, axis=0)
        safe = np.where(np.isfinite(peak), peak, 0.0)
        spread = np.exp(terms - np.repeat(safe, states, axis=0))
        with np.errstate(divide="ignore"):
            return safe + np.log(np.add.reduceat(spread, starts, axis=0))

    def _joined_groups(self, missing) -> list:
        """The columns ``missing`` in groups that no node joins: two columns are in one group
        when a node's family holds both (or through a chain of such columns), so every
        potential of summing them out lies within one group. Each group is a sorted tuple."""
        group_of = {j: j for j in missing}

        def root(j):
            while group_of[j] != j:
                j = group_of[j]
            return j

        for j in missing:
            for v in self._family_neighbours(j):
                if v in group_of:
                    group_of[root(v)] = root(j)
        groups = {}
        for j in missing:
            groups.setdefault(root(j), []).append(j)
        return [tuple(sorted(g)) for g in groups.values()]

    def _elimination_plan(self, missing) -> dict:
        """What summing out the cells ``missing`` (a set of columns) takes: potentials,
        an order, and the largest table's cells per row."""
        touched = sorted({k for j in missing for k in self._mentions[j]})
        tables, linked = [], {}  # discrete nodes' potentials; continuous nodes' components
        for k in touched:
            factor = self._nodes[k]
            if factor.discrete:
                family = [*factor.discrete_parent_positions, *factor.column_positions]
                tables.append((k, tuple(v for v in family if v in missing)))
            else:
                up = [p for p in factor.continuous_parent_positions if p in missing]
                linked[k] = self.node_of[up[0]] if up else None
        components = []
        for nodes in _components(linked):
            if all(self._nodes[k].column_positions[0] in missing for k in nodes):
                continue  # only missing values, each a density: the integral is 1
            scope = sorted(
                {p for k in nodes for p in self._nodes[k].discrete_parent_positions if p in missing}
            )
            target_of = {
                k: self._nodes[linked[k]].column_positions[0]
                for k in nodes
                if linked[k] is not None
            }
            components.append((_children_first(nodes, linked), target_of, tuple(scope)))
        components = _merged_by_scope(components)
        # a missing variable whose only potential is its own node's table sums to 1
        pruned = True
        while pruned:
            pruned = False
            scopes = [scope for _, scope in tables] + [scope for *_, scope in components]
            for index, (k, scope) in enumerate(tables):
                own = next(iter(self._nodes[k].column_positions), None)  # the class's: none
                if own in scope and sum(own in s for s in scopes) == 1:
                    del tables[index]
                    pruned = True
                    break
        scopes = [scope for _, scope in tables] + [scope for *_, scope in components]
        cards = self._cards
        order, cliques = elimination_order(scopes, cards)
        cells = max([table_cells(c, cards, self.n_classes) for c in [*cliques, *scopes]] or [1])
        return {
            "missing": missing,
            "tables": tables,
            "components": components,
            "order": order,
            "cliques": cliques,
            "cells": cells,
        }

    def _too_costly(self, plan, n_rows) -> str:
        cards = self._cards
        largest = max(
            [*plan["cliques"], *(s for _, s in plan["tables"])],
            key=lambda c: table_cells(c, cards, self.n_classes),
        )
        names = [self.factor_of(v).columns_[0] for v in largest]
        return (
            f"{n_rows} row(s) miss {len(plan['missing'])} cells whose summing out by "
            f"variable elimination needs a table of {plan['cells']:.3g} cells per row (the "
            f"classes times the states of {names}), more than MAX_TABLE_CELLS = "
            f"{MAX_TABLE_CELLS:,}: the structure joins too many of the missing cells. "
            "Impute some of them, or use a structure with fewer parents per feature "
            "(TAN, KDB with a smaller k)."
        )

    def _eliminated(self, plan, codes, values) -> np.ndarray:
        """log of the sum over the missing variables of the touched nodes' terms, (n, C)."""
        n, n_classes = len(codes), self.n_classes
        potentials, single = [], {}
        alone = self._summed_alone(plan)
        filled = np.maximum(codes, 0)
        for k, free in plan["tables"]:
            own = next(iter(self._nodes[k].column_positions), None)  # the class's: none
            dropped = None if own is None or own in plan["missing"] else codes[:, own] == MISSING
            if len(free) == 1 and self._cards[free[0]] >= GROUPED_STATES:
                # the table's rows by the summed variable's states, read in place: no copy of
                # the table laid out by the others (a StateSum reads the states row by row,
                # a few rows pick their columns)
                index, columns = self._nodes[k].log_states(filled, free[0])
                if dropped is not None and dropped.any():
                    index = np.where(dropped, -1, index)
                single.setdefault(free[0], []).append((index, columns))
                continue
            if dropped is None or not dropped.any():
                index, table = self._nodes[k].log_potential(codes, free)
            elif len(free) == 1:
                # its own cell sums to 1 in these rows (see _needed): no term, -1 (a StateSum
                # reads it so and keeps the same tables for every block; padded below if not)
                index, table = self._nodes[k].log_potential(np.maximum(codes, 0), free)
                index = np.where(dropped, -1, index)
            else:  # its own cell sums to 1 in these rows: a slice of zeros
                index, table = self._nodes[k].log_potential(np.maximum(codes, 0), free)
                table = np.concatenate([table, np.zeros((1, *table.shape[1:]))])
                index = np.where(dropped, len(table) - 1, index)
            if len(free) == 1:  # summed with the others over the same variable
                single.setdefault(free[0], []).append((index, table))
            else:
                potentials.append((free, table[index]))
        for v, items in single.items():
            if v in alone:
                tables = tuple(t for _, t in items)
                prepared = self._prepared(
                    tables, lambda t: StateSum.from_states(list(t), n_classes)
                )
                potentials.append(((), prepared([i for i, _ in items])))
                continue
            if self._cards[v] >= GROUPED_STATES:  # the tables given by their states' rows
                potentials.append(((v,), _picked_states(items).reshape(n, n_classes, -1)))
                continue
            items = [_zero_term_read(index, table) for index, table in items]
            if len(items) == 1:
                index, table = items[0]
                summed = table[index]
            else:
                summed = summed_rows(
                    [i for i, _ in items], [t.reshape(len(t), -1) for _, t in items]
                )
            potentials.append(((v,), summed.reshape(n, n_classes, -1)))
        for order, target_of, scope in plan["components"]:
            potentials.append((scope, self._component(order, target_of, scope, codes, values)))
        order = [v for v in plan["order"] if v not in alone]
        return eliminate(potentials, order, n, n_classes)

    def _summed_alone(self, plan) -> set:
        """The missing variables of ``plan`` of many states (``GROUPED_STATES`` or more) that
        only potentials of that one variable mention: each summed out by a
        :class:`~bnclassify.elimination.StateSum` of its tables."""
        single, shared = set(), set()
        for _, free in plan["tables"]:
            (single if len(free) == 1 else shared).update(free)
        shared.update(u for *_, scope in plan["components"] for u in scope)
        cards = self._cards
        return {v for v in single - shared if cards[v] >= GROUPED_STATES}

    def _prepared(self, key, make):
        """``make(key)`` for a tuple ``key`` of tables, kept while they are the same objects:
        summing a variable out of a member's tables repeats at every prediction, and its
        preparation (the distinct terms, the stacked tables) does not depend on the rows.
        Not pickled; a few dozen kept, the oldest dropped."""
        cache = self.__dict__.setdefault("_sum_cache", {})
        ident = tuple(id(t) for t in key)
        made = cache.get(ident)
        if made is not None and all(a is b for a, b in zip(made[0], key, strict=True)):
            return made[1]
        if len(cache) >= SUM_CACHE_SIZE:
            del cache[next(iter(cache))]
        cache[ident] = (key, make(key))  # the key held, so its objects' ids stay theirs
        return cache[ident][1]

    def _component(self, order, target_of, scope, codes, values) -> np.ndarray:
        """Continuous nodes joined by missing values (``order``: children first, each sending
        to the column ``target_of`` it), integrated by their messages for every state of their
        missing discrete parents ``scope``: shape ``(n, C, *cards of scope)``."""
        cards = [self._cards[v] for v in scope]
        grid = np.indices(cards).reshape(len(scope), -1).T if scope else np.zeros((1, 0), int)
        n = len(codes)
        # only the nodes' families are read: repeat those columns, not the whole table
        family = sorted(
            {
                j
                for k in order
                for j in (*self._nodes[k].column_positions, *self._nodes[k].parent_positions)
            }
        )
        filled = _repeated(codes, family, len(grid))
        if scope:
            filled[:, list(scope)] = np.tile(grid, (n, 1))
        filled_values = None if values is None else _repeated(values, family, len(grid))
        joint = self._pass(filled, filled_values, order, target_of)  # (n * states, C)
        joint = joint.reshape(n, len(grid), self.n_classes).transpose(0, 2, 1)
        return joint.reshape(n, self.n_classes, *cards)

    def _pass(self, codes, values, nodes, target_of):
        """Messages up through ``nodes`` (children before parents); returns the log terms."""
        out = np.zeros((len(codes), self.n_classes))
        incoming = {}
        for k in nodes:
            target = target_of.get(k)
            const, message = self._nodes[k].upward(codes, values, incoming.get(k), target)
            out += const
            if target is not None:
                parent = self.node_of[target]
                incoming[parent] = self._nodes[parent].combine(incoming.get(parent), message)
        return out

    # -- export ---------------------------------------------------------------------
    def to_pgmpy(self, structure, class_node, features, categories, classes):
        """A pgmpy ``DiscreteBayesianNetwork`` with the same CPTs, states named by value.

        The class CPD has no parents (or its table's, ``class_factor``); feature
        ``i``'s CPD has evidence ``[class_node, *parents]`` in that order (its
        parents alone for a node in ``class_free``). ``structure`` gives the arcs.
        A node that pgmpy's discrete networks cannot hold raises a ``TypeError``
        naming it.
        """
        from pgmpy.factors.discrete import TabularCPD
        from pgmpy.models import DiscreteBayesianNetwork

        network = DiscreteBayesianNetwork()
        network.add_nodes_from(structure.nodes)
        network.add_edges_from(structure.edges)
        state_names = {class_node: python_values(classes)}
        state_names.update(
            {
                f: python_values(c)
                for f, c in zip(features, categories, strict=True)
                if c is not None
            }
        )
        if self.class_factor is not None:
            cpds = [self.class_factor.to_pgmpy(class_node, state_names)]
        else:
            cpds = [
                TabularCPD(
                    class_node,
                    self.n_classes,
                    np.exp(self.log_prior).reshape(-1, 1),
                    state_names={class_node: state_names[class_node]},
                )
            ]
        free = set(self.class_free)
        cpds += [
            factor.to_pgmpy(
                None if free & set(factor.column_positions) else class_node, state_names
            )
            for factor in self.factors
        ]
        network.add_cpds(*cpds)
        return network

    # -- declared state (the fields of a model file; see bnclassify.state) ---------------
    def _get_state(self) -> dict:
        """``log_prior``, ``parents`` (each feature's parent positions) and ``factors``; a
        general network's ``class_factor`` and ``class_free`` too."""
        state = {"log_prior": self.log_prior, "parents": self.parents, "factors": self.factors}
        if self.class_factor is not None or self.class_free:
            state.update(class_factor=self.class_factor, class_free=self.class_free)
        return state

    @classmethod
    def _from_state(cls, state, params=None):
        """The network of :meth:`_get_state`'s fields, checked: a normalised prior, an
        acyclic structure and one fitted factor per node that agrees with it."""
        require(params is None, "FittedNetwork", "takes no parameters.")
        fields = {"log_prior", "parents", "factors"}
        general = fields | {"class_factor", "class_free"}
        require(
            isinstance(state, dict) and set(state) in (fields, general),
            "FittedNetwork",
            f"needs the fields {sorted(fields)} (and class_factor, class_free for a general "
            "network).",
        )
        log_prior, parents, factors = state["log_prior"], state["parents"], state["factors"]
        class_factor, class_free = state.get("class_factor"), state.get("class_free", ())
        float_array(log_prior, "log_prior", allow_minus_inf=True)
        require(log_prior.ndim == 1, "log_prior", "must be a 1-D float array.")
        if class_factor is None:
            probability_rows(log_prior, "log_prior", log=True)
        else:
            require(
                isinstance(class_factor, ClassTable)
                and getattr(class_factor, "log_table_", None) is not None,
                "class_factor",
                "is not a fitted ClassTable.",
            )
            require(not log_prior.any(), "log_prior", "must be 0 beside a class_factor.")
        require(isinstance(parents, list), "parents", "must be a list.")
        m = len(parents)
        for family in parents:
            positions(family, "parents", m)
        positions(class_free, "class_free", m)
        # the class as node m: a child of its parents, a parent of every node not class-free
        class_parents = () if class_factor is None else tuple(class_factor.parent_positions)
        positions(class_parents, "class_factor parents", m)
        acyclic(
            [(*family, *(() if j in class_free else (m,))) for j, family in enumerate(parents)]
            + [class_parents],
            "parents",
        )
        require(isinstance(factors, list), "factors", "must be a list.")
        covered = []
        for factor in factors:
            require(
                isinstance(factor, Factor) and getattr(factor, "columns_", None) is not None,
                "factors",
                "a network factor is not a fitted bnclassify factor.",
            )
            columns = factor.column_positions
            positions(columns, f"{factor.columns_} columns", m)
            positions(factor.parent_positions, f"{factor.columns_} parents", m)
            covered += list(columns)
            require(
                len(columns) > 1 or sorted(factor.parent_positions) == sorted(parents[columns[0]]),
                f"{factor.columns_}",
                "the factor's parents differ from the network's.",
            )
        require(
            sorted(covered) == list(range(m)),
            "factors",
            "the network's factors do not cover every column exactly once.",
        )
        for factor in factors:
            if set(class_free) & set(factor.column_positions):
                table = getattr(factor, "log_table_", None)  # None: an unobserved column's
                require(
                    table is None or bool((table == table[:1]).all()),
                    f"{factor.columns_}",
                    "a node in class_free must have one table for every class.",
                )
        return cls(log_prior, parents, factors, class_factor, class_free)


def rooted_forest_joints(
    codes, log_prior, log_single, log_pairs, edges, roots, root_order=None
) -> np.ndarray:
    """log P_r(c, x_observed) of one categorical forest rooted at each feature in ``roots``.

    The members of an ensemble that differ only in their root share the
    forest and the counts, so an arc ``p -> j`` has the same CPT in every
    member where it points that way. Belief propagation therefore computes
    each directed message once (an upward and a downward pass, ``2 (m - 1)``
    messages in all) and every rooting's exact marginal from them: member
    ``r`` is ``log P(c)`` plus, for ``r``'s component, the log-sum-exp over
    ``x_r`` of ``log P(x_r | c)``, its evidence and its neighbours' messages,
    plus every other component's term at that component's own root (its
    first feature, as :func:`~bnclassify.structure.orient_constrained` roots
    it). Missing cells are summed out; observed ones are evidence. The cost
    is that of one member, not of ``m``.

    Parameters
    ----------
    codes : ndarray of shape (n, m)
        Category codes, :data:`~bnclassify.data.MISSING` for missing cells.
    log_prior : ndarray of shape (C,)
    log_single : list of ndarray
        ``log P(x_j | c)`` of each feature as a root, shape ``(C, r_j)``.
    log_pairs : dict
        ``(p, j) -> log P(x_j | c, x_p)``, shape ``(C, r_p, r_j)``, for every
        edge of the forest in both directions.
    edges : list of tuple of int
        The forest's edges.
    roots : sequence of int
        The rootings wanted.
    root_order : sequence of int, optional
        The feature positions in the order that picks each other component's
        root (its first feature in it); default ``0 .. m-1``. TAN passes its
        name order (:func:`~bnclassify.structure.name_order`).

    Returns
    -------
    ndarray of shape (n, len(roots), C)

    Examples
    --------
    >>> log_single = [np.log(np.array([[0.5, 0.5]]))] * 2
    >>> log_pairs = {(0, 1): np.log(np.array([[[0.9, 0.1], [0.2, 0.8]]])),
    ...              (1, 0): np.log(np.array([[[0.7, 0.3], [0.4, 0.6]]]))}
    >>> joint = rooted_forest_joints(np.array([[0, -1]]), np.zeros(1), log_single,
    ...                              log_pairs, [(0, 1)], [0, 1])
    >>> np.exp(joint).round(3).ravel().tolist()  # P_0(x_0 = 0); P_1(x_0 = 0) = .5 * .7 + .5 * .4
    [0.5, 0.55]
    """
    codes = np.asarray(codes)
    n, m = codes.shape
    neighbours = [[] for _ in range(m)]
    for u, v in edges:
        neighbours[u].append(v)
        neighbours[v].append(u)
    starts = range(m) if root_order is None else root_order
    component_of = np.full(m, -1)
    component_roots, parent, order = [], [-1] * m, []
    for start in starts:  # each component is rooted at its first feature in ``root_order``
        if component_of[start] >= 0:
            continue
        component_of[start] = len(component_roots)
        component_roots.append(start)
        queue, head = [start], 0
        while head < len(queue):
            u = queue[head]
            head += 1
            for v in neighbours[u]:
                if component_of[v] < 0:
                    component_of[v] = component_of[start]
                    parent[v] = u
                    queue.append(v)
        order += queue
    forest = {
        "parent": parent,
        "order": order,
        "children": [[v for v in neighbours[u] if parent[v] == u] for u in range(m)],
        "component_of": component_of,
        "component_roots": component_roots,
    }
    out = np.empty((n, len(roots), len(log_prior)))
    complete = (codes != MISSING).all(axis=1)
    for rows, observed in ((complete, True), (~complete, False)):
        if rows.any():
            out[rows] = _propagate(
                codes[rows], observed, forest, log_prior, log_single, log_pairs, roots
            )
    return out


def _propagate(codes, observed, forest, log_prior, log_single, log_pairs, roots):
    """The rooted joints of ``codes``; ``observed``: every cell is, so messages are numbers.

    A message from ``j`` to its neighbour ``p`` is a function of ``x_p`` (a
    log-sum-exp over ``x_j``); when every cell is observed it is only needed
    at the observed ``x_p``, and it is the sum of the log CPT terms of the
    edges behind it, so the same passes run on ``(n, C)`` sums instead.
    """
    n, n_classes = len(codes), len(log_prior)
    parent, children = forest["parent"], forest["children"]
    if observed:
        base = [np.zeros((n, n_classes)) for _ in log_single]

        def send(key, belief):  # key (p, j): log P(x_j | c, x_p) at the observed values
            return log_pairs[key][:, codes[:, key[0]], codes[:, key[1]]].T + belief

        def at_root(r, belief):
            return log_single[r][:, codes[:, r]].T + belief

    else:
        base = []
        for j, table in enumerate(log_single):
            column = codes[:, j]
            seen = column != MISSING
            evidence = np.zeros((n, table.shape[-1]))
            evidence[seen] = -np.inf
            evidence[seen, column[seen]] = 0.0
            base.append(np.broadcast_to(evidence[:, None, :], (n, n_classes, table.shape[-1])))

        def send(key, belief):
            return _send(log_pairs[key], belief)

        def at_root(r, belief):
            return _send(log_single[r][:, None, :], belief)[:, :, 0]

    up, inside = [None] * len(base), [None] * len(base)  # to the parent; children's summed
    for j in reversed(forest["order"]):
        inside[j] = base[j]
        for k in children[j]:
            inside[j] = inside[j] + up[k]
        if parent[j] >= 0:
            up[j] = send((parent[j], j), inside[j])
    down = [None] * len(base)  # the message from the parent
    for p in forest["order"]:
        kids = children[p]
        before = [base[p] if down[p] is None else base[p] + down[p]]  # prefix sums
        for k in kids:
            before.append(before[-1] + up[k])
        after = None
        for i in range(len(kids) - 1, -1, -1):
            k = kids[i]
            belief = before[i] if after is None else before[i] + after
            down[k] = send((k, p), belief)
            after = up[k] if after is None else after + up[k]
    rooted = {}
    for r in set(int(r) for r in roots) | set(forest["component_roots"]):
        rooted[r] = at_root(r, inside[r] if down[r] is None else inside[r] + down[r])
    # the other components' terms at their own roots, summed without subtracting
    terms = [rooted[g] for g in forest["component_roots"]]
    prefix = [np.zeros((n, n_classes))]
    for t in terms:
        prefix.append(prefix[-1] + t)
    suffix = [np.zeros((n, n_classes))] * (len(terms) + 1)
    for i in range(len(terms) - 1, -1, -1):
        suffix[i] = terms[i] + suffix[i + 1]
    out = np.empty((n, len(roots), n_classes))
    for k, r in enumerate(roots):
        c = forest["component_of"][r]
        out[:, k] = log_prior + rooted[r] + (prefix[c] + suffix[c + 1])
    return out


def _send(log_table, belief):
    """``log sum_b P(b | c, a) exp(belief[n, c, b])``, shape ``(n, C, r_a)``.

    ``log_table`` is ``log P(b | c, a)`` of shape ``(C, r_a, r_b)``; the
    log-sum-exp is shifted by each row's largest finite belief. A child without states
    (a column no training row observed) is missing in every row: it sends 0.
    """
    if belief.shape[2] == 0:
        return np.zeros((belief.shape[0], belief.shape[1], log_table.shape[1]))
    top = belief.max(axis=2)  # (n, C)
    safe_top = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        weights = np.exp(belief - safe_top[:, :, None])
        return safe_top[:, :, None] + np.log(np.einsum("cpv,ncv->ncp", np.exp(log_table), weights))


def _looks_up_its_table(factor) -> bool:
    """Whether ``factor``'s log terms are :class:`~bnclassify.factors.Categorical`'s look-ups
    (a class table's too, given parents), which :meth:`FittedNetwork._table_gather` stacks."""
    own = type(factor).log_terms
    return own is Categorical.log_terms or (
        isinstance(factor, ClassTable) and own is ClassTable.log_terms
    )


def _picked_states(items) -> np.ndarray:
    """``sum_f columns_f[:, index_f].T`` of ``items`` ``[(index_f, columns_f)]`` (each a
    table by its states' rows, :meth:`~bnclassify.factors.Categorical.log_states`), the
    terms added in turn; an index of -1 adds no term: ``(n, classes * states)``."""
    out = None
    for index, columns in items:
        picked = np.take(columns, np.maximum(index, 0), axis=1).T
        if len(index) and index.min() < 0:
            picked = np.where((index < 0)[:, None], 0.0, picked)
        if out is None:
            out = np.ascontiguousarray(picked)
        else:
            out += picked
    return out


def _zero_term_read(index, table):
    """``(index, table)`` with an index of -1 (no term in that row) pointing to a slice of
    zeros appended to ``table``."""
    if not len(index) or index.min() >= 0:
        return index, table
    table = np.concatenate([table, np.zeros((1, *table.shape[1:]))])
    return np.where(index < 0, len(table) - 1, index), table


def _rows(values, mask):
    return None if values is None else values[mask]


def _merged_by_scope(components) -> list:
    """Components with the same missing discrete parents as one: one pass over their
    nodes (each keeps its children-first order) for every state of the shared scope."""
    merged: dict = {}
    for order, target_of, scope in components:
        nodes, targets = merged.setdefault(scope, ([], {}))
        nodes += order
        targets.update(target_of)
    return [(nodes, targets, scope) for scope, (nodes, targets) in merged.items()]


def _repeated(table, columns, times) -> np.ndarray:
    """``np.repeat(table, times, axis=0)`` in ``columns``; the other columns are zeros."""
    out = np.zeros((len(table) * times, table.shape[1]), dtype=table.dtype)
    out[:, columns] = np.repeat(table[:, columns], times, axis=0)
    return out


def _components(linked) -> list:
    """Connected groups of the nodes of ``linked`` (node -> the node it links to, or None)."""
    group = {k: k for k in linked}

    def find(k):
        while group[k] != k:
            group[k] = group[group[k]]
            k = group[k]
        return k

    for k, up in linked.items():
        if up is not None and up in group:
            group[find(k)] = find(up)
    out = {}
    for k in linked:
        out.setdefault(find(k), []).append(k)
    return list(out.values())


def _children_first(nodes, linked) -> list:
    """``nodes`` ordered so that every node comes before the node it links to (``linked``)."""
    children = {k: [] for k in nodes}
    roots = []
    for k in nodes:
        if linked[k] is None:
            roots.append(k)
        else:
            children[linked[k]].append(k)
    order, stack = [], roots[::-1]
    while stack:
        k = stack.pop()
        order.append(k)
        stack.extend(children[k])
    return order[::-1]


def python_values(values):
    """numpy scalars as Python values (pgmpy state names)."""
    return [v.item() if isinstance(v, np.generic) else v for v in values]


def _log_table_or_none(factor):
    return getattr(factor, "log_table_", None)
