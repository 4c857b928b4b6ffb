"""Hierarchical Dirichlet process (HDP) smoothing of conditional probability tables.

The method of Petitjean, Buntine, Webb and Zaidi (2018, "Accurate parameter
estimation for Bayesian network classifiers using hierarchical Dirichlet
processes", Machine Learning 107). The table ``P(x | c, x_1, ..., x_p)`` of one
family is a tree over its conditioning variables in order: the root is the
child's marginal ``P(x)``, level 1 is ``P(x | c)``, level 2 ``P(x | c, x_1)``,
..., the leaves ``P(x | c, x_1, ..., x_p)``. Each node's distribution is drawn
from a Dirichlet process around its parent's, ``theta_node ~ DP(a_node,
theta_parent)`` (with finitely many values: a Dirichlet with mean
``theta_parent``), the root's around the uniform distribution; the data are
counts at the leaves. A node far from the data borrows its parent's estimate,
so a sparse table backs off to the tables of fewer parents, one parent at a
time, instead of towards the uniform distribution.

**The sampler** is the paper's collapsed Gibbs sampler on the Chinese
restaurant representation. Each node and value has a count ``n_k`` (data at a
leaf; at an inner node, the sum of its children's table counts) and a table
count ``1 <= t_k <= n_k``, the part of it passed up to the parent. The
likelihood of the whole tree given the concentrations is::

    prod over nodes of  a^T / (a)_N  prod_k S(n_k, t_k)

(``T = sum t_k``, ``N = sum n_k``, ``(a)_N`` the rising factorial, ``S`` the
unsigned Stirling numbers of the first kind, :mod:`~bnclassify.parameters.stirling`).
One sweep draws every ``t_k`` in turn, leaves first, from its conditional
given the rest, over a window of ``t_k - 10 .. t_k + 10`` (as the authors'
code does; the conditional is peaked, and the window bounds the cost of a
draw); the root's table counts are 1 for every value seen. The concentrations
are tied per level of each table (``tying="level"``, the paper's and its
code's default: a level's nodes answer the same question, one parent more
than the level above, and pool their evidence about how far they stray from
their parents) and redrawn every 5 sweeps by the auxiliary-variable Gibbs
step for a Gamma(2, 1) prior (capped at 4000); they start at 2, and the
root's stays 2, as in the authors' code. The estimate of a node is the
posterior mean ``(n_k + a p_parent,k) / (N + a)`` averaged over the sweeps
after the burn-in.

A parent configuration without data has no node: it takes the estimate of
its deepest ancestor that has data (its posterior mean given everything
else). Only nodes with data are sampled, so a table's cost grows with the
number of its non-empty cells, not with its size.

**Missing cells.** A training row whose child is observed but one of whose
parents is missing counts at the node of its observed prefix: the class
node if the first parent is missing, the node ``(c, x_1, ..., x_l)`` if
``x_{l+1}`` is (given the counts of the shorter families, ``prefixes=``; the
estimators pass them). An inner node's count is then its own rows plus its
children's table counts, and the sampler is otherwise unchanged. The authors'
code has no missing-value path; leaving such rows out of the whole tree
learned the upper levels of a family whose parents are often missing from its
few complete rows (KDB(k=2) on UCI heart.h: 6 to 13 of 147 training rows),
and measured worse (docs/benchmarks_history.md, "Numbers binned in the estimator").

**Defaults.** ``n_iter=5000`` sweeps, the burn-in ``min(1000, n_iter / 10)``
(the first 500), as the authors' library has them (``ProbabilityTree()``) and
as the paper's experiments and the 2025 HLS paper's comparison ran it.
Zhang, Petitjean and Buntine's ESKDB code runs fewer (``-I``, 1000 in its
README's examples): pass ``HDP(n_iter=1000)`` for that.

**Speed.** The whole run is one call of a compiled kernel
(``bnclassify/_native/_kernels.c``) over every table of a model at once; a build
without a C compiler runs the same sampler in Python (``bnclassify/_native/``),
with identical results, far slower. Its random numbers come from a
xoshiro256** generator seeded from the :class:`numpy.random.Generator` of
``random_state``, the same in both.
"""

from __future__ import annotations

import math
import numbers
from itertools import pairwise

import numpy as np
from scipy.special import digamma

from .._native import HDP_DONE, hdp_run
from ..validation import Interval, Options, validate_parameters
from .hierarchy import own_rows
from .smoothing import Smoothing, generator
from .stirling import StirlingRows

#: How concentrations are shared: per level of a table (the paper's default), by the
#: children of one node, one per table, or one per node.
TYINGS = ("level", "siblings", "table", "none")
#: Every concentration's first value, the root's for good, and the Gamma prior's
#: shape; the prior's rate is ``PRIOR_SHAPE / INITIAL_CONCENTRATION`` (mean 2).
INITIAL_CONCENTRATION = 2.0
PRIOR_SHAPE = 2.0
#: The largest concentration drawn (the authors' cap).
MAX_CONCENTRATION = 4000.0
#: A table count is drawn among ``t - WINDOW .. t + WINDOW``.
WINDOW = 10
#: The concentrations are redrawn after every this many sweeps.
SWEEPS_PER_ROUND = 5
#: The floor of ``log q`` in the concentrations' step (the authors' ``q >= 1e-75``).
LOG_Q_FLOOR = math.log(1e-75)
#: Rows and columns of log S(n, t) made beyond the first counts (more are made on demand).
TABLE_MARGIN = 64


class HDP(Smoothing):
    """Hierarchical Dirichlet process smoothing (Petitjean, Buntine, Webb and Zaidi 2018).

    Each table backs off to the tables of fewer parents, in the family's
    parent order: the class first, then the feature parents in the order the
    model states (see the module's description and the user guide's smoothing
    page). Costly: ``n_iter`` sweeps over every non-empty cell of every table.

    Parameters
    ----------
    n_iter : int, default=5000
        Gibbs sweeps (the paper's and its code's default).
    burn_in : int, optional
        Sweeps left out of the average; default ``min(1000, n_iter // 10)``.
    tying : {"level", "siblings", "table", "none"}, default="level"
        Which nodes share a concentration: those at one level of a table (the
        paper's default), the children of one node, every node of a table, or
        none.

    Examples
    --------
    >>> import numpy as np
    >>> from bnclassify.parameters import HDP
    >>> counts = np.array([[[9, 1], [0, 0]], [[2, 8], [1, 0]]])  # N(c, x_parent, x)
    >>> table = np.exp(HDP(n_iter=200).log_conditional(counts, np.random.default_rng(0)))
    >>> table.round(2)
    array([[[0.87, 0.13],
            [0.68, 0.32]],
    <BLANKLINE>
           [[0.25, 0.75],
            [0.69, 0.31]]])

    The parent state with no data in class 0 is drawn around that class's node,
    less sharply than the state with ten rows; the one row seen in class 1
    (x = 0) pulls its state away from class 1's estimate towards that value.
    """

    name = "hdp"
    _parameter_constraints = {
        "n_iter": [Interval(numbers.Integral, 1, None, closed="left")],
        "burn_in": [None, Interval(numbers.Integral, 0, None, closed="left")],
        "tying": [Options(TYINGS)],
    }

    def __init__(self, n_iter=5000, burn_in=None, tying="level"):
        self.n_iter = n_iter
        self.burn_in = burn_in
        self.tying = tying

    samples = True
    partial_rows = True

    def log_conditional(self, counts, rng=None, prefixes=None) -> np.ndarray:
        return self.log_conditionals([counts], rng, None if prefixes is None else [prefixes])[0]

    def log_conditionals(self, tables, rng=None, prefixes=None) -> list:
        """Every table smoothed in one run of the sampler (their trees are independent).

        Parameters
        ----------
        tables : list of ndarray
            Counts ``N(c, x_1, ..., x_p, x)`` of each family, non-negative integers.
        rng : numpy.random.Generator, int or None
        prefixes : list of list of ndarray, optional
            Per table, the counts of its shorter families ``N(c, x)``, ``N(c, x_1,
            x)``, ..., ``N(c, x_1, ..., x_{p-1}, x)``, each over the rows where its
            own variables are observed: a row whose parent ``x_{l+1}`` is missing
            then counts at the node ``(c, x_1, ..., x_l)`` of the tree (None: only
            the complete rows count).

        Returns
        -------
        list of ndarray
            ``log P(x | c, x_1, ..., x_p)`` of each, same shapes.
        """
        validate_parameters(self)
        n_iter = int(self.n_iter)
        burn_in = min(1000, n_iter // 10) if self.burn_in is None else int(self.burn_in)
        if burn_in >= n_iter:
            raise ValueError(
                f"HDP: burn_in={burn_in} leaves none of the n_iter={n_iter} sweeps to average."
            )
        counts = [_integer_counts(t) for t in tables]
        own = (
            None
            if prefixes is None
            else [_own_rows(c, p) for c, p in zip(counts, prefixes, strict=True)]
        )
        forest = Forest(counts, self.tying, own)
        if forest.n_nodes:
            rng = generator(rng)
            _run(forest, n_iter, burn_in, rng)
        return forest.log_tables()


def _integer_counts(table) -> np.ndarray:
    counts = np.asarray(table, dtype=float)
    if counts.ndim < 2:
        raise ValueError(
            "HDP smooths a table of counts N(c, x_1, ..., x_p, x): the class on its first axis, "
            f"the child's values on its last; got shape {counts.shape}."
        )
    if not np.isfinite(counts).all() or (counts < 0).any():
        raise ValueError("HDP smooths counts: the table has a negative or non-finite entry.")
    whole = np.round(counts)
    if not (whole == counts).all():
        bad = counts[whole != counts].flat[0]
        raise ValueError(
            f"HDP smooths counts of rows, and the table has the count {bad!r}: row weights "
            "(sample_weight) must be whole numbers for smoothing='hdp'."
        )
    return whole.astype(np.int64)


def _own_rows(counts, prefixes) -> dict:
    """``{level: rows counted at that level's nodes themselves}`` of one table's tree
    (:func:`~.hierarchy.own_rows`), whole numbers as the sampler counts them."""
    whole = [_integer_counts(shorter) for shorter in prefixes]
    return {level: rows.astype(np.int64) for level, rows in own_rows(counts, whole, "HDP").items()}


class Forest:
    """The trees of several tables, flattened for the sampler.

    Nodes (one per parent configuration prefix with data) are numbered tree by
    tree, each tree's leaves first and its root last; a node's ``K`` cells (one
    per value of the child) are contiguous. ``n``, ``t``: every cell's count and
    table count; ``N``, ``T``: their sums per node; ``group``: the concentration
    of each node (group 0, the roots', stays at its first value). ``active``: the
    cells whose table count is drawn (those with two rows or more below them).
    ``record``: the nodes whose counts move (a child cell is active), recorded
    after every sweep; ``leaves``: the others (every leaf among them), whose
    means over a round follow from their parents' sums. ``tree_*``: where each
    tree's part of a list starts.
    """

    def __init__(self, tables, tying, own=None):
        self.shapes = [t.shape for t in tables]
        self.trees = []  # per table: None (no data) or what log_tables needs
        parent, start, group, depth = [], [], [], []
        n, t, bound, children, leaf = [], [], [], [], []
        tree_nodes, tree_groups = [0], [1]
        n_nodes = n_cells = 0
        for i, counts in enumerate(tables):
            tree = _tree(counts, None if own is None else own[i])
            if tree is None:
                self.trees.append(None)
                continue
            K, levels = tree["K"], tree["levels"]
            sizes = [len(level["ids"]) for level in levels]  # level 0 .. L
            L = len(levels) - 1
            offset, position = {}, n_nodes  # node order: level L, L-1, ..., 1, root
            for d in range(L, -1, -1):
                offset[d] = position
                position += sizes[d]
            for d in range(L, -1, -1):
                level = levels[d]
                parent.append(offset[d - 1] + level["up"] if d else np.array([-1]))
                depth.append(np.full(sizes[d], d))
                n.append(level["n"].ravel())
                t.append(level["t"].ravel())
                bound.append(level["D"].ravel())
                children.append(level["children"].ravel())
                leaf.append(np.full(sizes[d] * K, d == L))
            local_parent = np.concatenate(parent[-(L + 1) :]) - n_nodes
            local_group = _groups(tying, local_parent, np.concatenate(depth[-(L + 1) :]), sizes[L])
            group.append(np.where(local_group < 0, 0, local_group + tree_groups[-1]))
            tree_groups.append(tree_groups[-1] + int(local_group.max()) + 1)
            start.append(n_cells + K * np.arange(position - n_nodes))
            self.trees.append({"K": K, "levels": levels, "offset": offset})
            n_nodes, n_cells = position, n_cells + K * (position - n_nodes)
            tree_nodes.append(n_nodes)
        self.n_nodes, self.n_groups = n_nodes, tree_groups[-1]
        if not n_nodes:
            return
        self.parent = np.concatenate(parent).astype(np.int64)
        self.start = np.append(np.concatenate(start), n_cells).astype(np.int64)
        self.group = np.concatenate(group).astype(np.int64)
        self.n = np.concatenate(n).astype(np.int64)
        self.t = np.concatenate(t).astype(np.int64)
        self.bound = np.concatenate(bound).astype(np.int64)  # the data below each cell
        self.is_leaf = np.concatenate(leaf)
        cell_node = np.repeat(np.arange(n_nodes), np.diff(self.start))
        self.N = np.add.reduceat(self.n, self.start[:-1]).astype(np.int64)
        self.T = np.add.reduceat(self.t, self.start[:-1]).astype(np.int64)
        not_root = self.parent[cell_node] >= 0
        self.active = np.flatnonzero(not_root & (self.bound >= 2)).astype(np.int64)
        self.active_node = cell_node[self.active].astype(np.int64)
        self.sampled_nodes = np.flatnonzero(self.parent >= 0).astype(np.int64)
        # a node whose counts move (a child's table count is drawn) is recorded every sweep;
        # the others (the leaves among them) once a round, from their parents' sums; both
        # lists parents first, tree by tree (each tree's nodes reversed: its root first)
        bounds = np.asarray(tree_nodes)
        top_down = np.concatenate([np.arange(b - 1, a - 1, -1) for a, b in pairwise(bounds)])
        moving = np.zeros(n_nodes, dtype=bool)
        moving[self.parent[self.active_node]] = True
        self.record = top_down[moving[top_down]].astype(np.int64)
        self.leaves = top_down[~moving[top_down]].astype(np.int64)
        tree_of = np.repeat(np.arange(len(bounds) - 1), np.diff(bounds))
        n_trees = len(bounds) - 1
        self.tree_active = np.searchsorted(self.active_node, bounds).astype(np.int64)
        self.tree_sampled = np.searchsorted(self.sampled_nodes, bounds).astype(np.int64)
        self.tree_record = _pointers(tree_of[self.record], n_trees)
        self.tree_leaves = _pointers(tree_of[self.leaves], n_trees)
        self.tree_groups = np.asarray(tree_groups, dtype=np.int64)
        self.concentration = np.full(self.n_groups, INITIAL_CONCENTRATION)
        self.log_concentration = np.log(self.concentration)
        self.leaf_rows = np.unique(self.n[self.active[self.is_leaf[self.active]]])
        self.inner_cells = np.flatnonzero(~self.is_leaf)
        self.position = np.zeros(2 * (len(bounds) - 1), dtype=np.int64)
        self.rng = np.zeros(4 * (len(bounds) - 1), dtype=np.uint64)
        self.p = np.zeros(n_cells)
        self.acc = np.zeros(n_cells)
        self.round_acc = np.zeros(n_cells)
        self.n_recorded = 0

    def log_tables(self) -> list:
        """``log P(x | c, x_1, ..., x_p)`` of every table from the averaged estimates."""
        out = []
        if self.n_nodes:
            estimate = self.acc / max(self.n_recorded, 1)
            totals = np.add.reduceat(estimate, self.start[:-1])
            estimate = estimate / np.repeat(totals, np.diff(self.start))
            estimate = np.maximum(estimate, np.finfo(float).tiny)
        for shape, tree in zip(self.shapes, self.trees, strict=True):
            if tree is None:
                out.append(np.full(shape, -math.log(shape[-1])))
                continue
            out.append(np.log(self._table(tree, shape, estimate)))
        return out

    def _table(self, tree, shape, estimate):
        K, levels, offset = tree["K"], tree["levels"], tree["offset"]
        cards = shape[:-1]
        configs = math.prod(cards)
        node = np.full(configs, offset[0])  # the root
        index = np.arange(configs)
        for d in range(1, len(levels)):
            stride = math.prod(cards[d:])
            here = np.full(math.prod(cards[:d]), -1)
            here[levels[d]["ids"]] = offset[d] + np.arange(len(levels[d]["ids"]))
            found = here[index // stride]
            node = np.where(found >= 0, found, node)
        cells = self.start[node][:, None] + np.arange(K)
        return estimate[cells].reshape(shape)


def _pointers(tree_of, n_trees):
    """Where each tree's run starts in a list of its items, tree by tree."""
    return np.concatenate([[0], np.cumsum(np.bincount(tree_of, minlength=n_trees))]).astype(
        np.int64
    )


def _tree(counts, own=None):
    """Each level's nodes of one table: ids, parent positions, counts and table counts.

    ``own[d]`` (``d = 1 .. L - 1``, shape ``(prod(cards[:d]), K)``): the rows counted at an
    inner node of level ``d`` itself, those whose next parent cell is missing (none by
    default); the leaves' rows are ``counts``.
    """
    K = counts.shape[-1]
    cards = counts.shape[:-1]
    L = len(cards)
    rows = {L: counts.reshape(-1, K)}
    for d in range(L):
        rows[d] = np.zeros((math.prod(cards[:d]), K), dtype=np.int64)
        if own is not None and d in own:
            rows[d] = own[d]
    ids = {L: np.flatnonzero(rows[L].sum(axis=1))}
    for d in range(L, 0, -1):  # level d's parents: the prefixes one variable shorter
        ids[d - 1] = np.union1d(ids[d] // cards[d - 1], np.flatnonzero(rows[d - 1].sum(axis=1)))
    if not len(ids[0]):
        return None
    levels = [{"ids": ids[d], "own": rows[d][ids[d]]} for d in range(L + 1)]
    for d in range(L, 0, -1):
        levels[d]["up"] = np.searchsorted(ids[d - 1], ids[d] // cards[d - 1])
    for d in range(L, -1, -1):  # the data below each cell (its own and its children's)
        level = levels[d]
        level["D"], level["children"] = level["own"].copy(), np.zeros_like(level["own"])
        if d < L:
            below = levels[d + 1]
            np.add.at(level["D"], below["up"], below["D"])
            np.add.at(level["children"], below["up"], (below["D"] > 0).astype(np.int64))
    # the starting table counts, leaves up (the authors' start: a * (digamma(a + n) - digamma(a)))
    for d in range(L, -1, -1):
        level = levels[d]
        level["n"] = level["own"].copy()
        if d < L:
            np.add.at(level["n"], levels[d + 1]["up"], levels[d + 1]["t"])
        level["t"] = _first_tables(level["n"]) if d else (level["n"] > 0).astype(np.int64)
    return {"K": K, "levels": levels}


def _first_tables(n):
    a = INITIAL_CONCENTRATION
    guess = np.floor(a * (digamma(a + n) - digamma(a)))
    return np.where(n <= 1, n, np.maximum(1, guess)).astype(np.int64)


def _groups(tying, parent, depth, n_leaves):
    """Concentration group of each node of one tree (-1: the root), numbered from 0."""
    not_root = parent >= 0
    if tying == "level":
        return np.where(not_root, depth - 1, -1)
    if tying == "table":
        return np.where(not_root, 0, -1)
    if tying == "none":
        return np.where(not_root, np.cumsum(not_root) - 1, -1)
    # siblings: the children of one node share; parents are the nodes after the leaves
    return np.where(not_root, parent - n_leaves, -1)


def _run(forest, n_iter, burn_in, rng):
    """The sampler over the whole forest, the compiled kernel or its Python twin
    (:func:`bnclassify._native.hdp_run`); it stops only to ask for a larger table of
    log S(n, t), which is grown here and the run resumed."""
    forest.rng[:] = rng.integers(
        np.iinfo(np.uint64).max, size=len(forest.rng), dtype=np.uint64, endpoint=True
    )
    stuck = ~forest.rng.reshape(-1, 4).any(axis=1)  # xoshiro's one forbidden state
    forest.rng.reshape(-1, 4)[stuck, 0] = 1
    top = int(forest.bound.max()) + 1
    inner = forest.n[forest.inner_cells]
    rows = StirlingRows(
        min(int(inner.max()) + TABLE_MARGIN, top),
        min(int(forest.t.max()) + TABLE_MARGIN, top),
        forest.leaf_rows,
    )
    prior = (PRIOR_SHAPE, PRIOR_SHAPE / INITIAL_CONCENTRATION, MAX_CONCENTRATION, LOG_Q_FLOOR)
    settings = ((n_iter, burn_in, WINDOW, SWEEPS_PER_ROUND), prior)
    while True:
        status, need = hdp_run(forest, rows.table, rows.row_of, rows.columns, settings)
        if status == HDP_DONE:
            break
        row, column = need
        dense, columns = rows.dense_rows, rows.n_columns
        if row >= dense:
            dense = min(max(2 * dense, row + 1), top)
        if column >= columns:
            columns = min(max(2 * columns, column + 1), top)
        if (dense, columns) == (rows.dense_rows, rows.n_columns):
            raise RuntimeError(
                f"HDP: the sampler asks for log S({row}, {column}), beyond its counts."
            )
        rows = StirlingRows(dense, columns, forest.leaf_rows)
    forest.n_recorded = n_iter - burn_in
