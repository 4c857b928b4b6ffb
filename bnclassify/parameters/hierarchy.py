"""Ridge-penalised log-linear tables over a family's tree: the engine of :class:`~.hls.HLS`.

A family's counts ``N(c, x_1, ..., x_p, x)`` define a tree over its conditioning
variables in order: the root (the child's marginal), a node per class below it,
then a node per configuration ``(c, x_1, ..., x_l)`` at level ``l``; the leaves
are the table's rows. Every node ``v`` has a coefficient vector ``beta_v`` (one
entry per child state); a node's linear predictor ``mu_v`` is the sum of the
coefficients on its path from the root, and its distribution is
``softmax(mu_v)``. The coefficients minimise::

    - sum over nodes and states of N(v, x) log softmax(mu_v)_x
    + ridge / 2 * sum over nodes of ||beta_v||^2

(a multinomial logistic regression on the counts, never on the rows). The
rows sit at the leaves, except those with a missing parent ``x_l``: they sit at
the node ``(c, x_1, ..., x_{l-1})`` of their observed prefix (:func:`own_rows`),
a row of the regression whose path stops there. A node without data (its own
or below it) has coefficient 0 at the optimum, so only the nodes with data are
free: a configuration without data takes the distribution of its deepest
ancestor that has data.

**The solver** is Newton's method with the exact gradient and an approximate
Hessian that the tree lets us invert exactly. In the predictors ``mu`` the
problem is a Gaussian tree: the ridge ties each node to its parent, the data sit
at the leaves with Hessian ``n (diag p - p p^T)`` (a diagonal minus a rank-one
matrix; a node's own rows add the same form). Eliminating the tree from the
leaves up keeps every node's block a diagonal minus a rank-one matrix; where
several children (and the node's own rows) meet, their rank-one parts are
merged into one that subtracts no more than their sum
(Cauchy-Schwarz), so every block stays positive definite and at least the true
one. A step is an upward and a downward pass of element-wise operations on
``(nodes, states)`` arrays, one pass per level; it is Newton's step on a single
level and wherever sibling distributions agree, and the iteration converges in
3-10 steps (a backtracking line search keeps every step a descent).

**Chains.** A node with exactly one child (with data) and no rows of its own
passes its child's data up unchanged: along such a chain only the sum of the
coefficients reaches the likelihood, and ``L`` coefficients of sum ``s`` have
the least penalty (``ridge / 2 * ||s||^2 / L``) when each is ``s / L``. The
solver therefore sees each chain as one node with ridge ``ridge / L``
(:attr:`FamilyTree.levels`) and :meth:`FamilyTree.unfold` gives every node its
share: the same optimum, on up to half as many nodes (a configuration seen in
one training row is a chain down to its leaf; splice's tables are half chains).

**Batches.** Many problems with the same number of child states (the families
of a model, the folds of a cross-validation) are stacked into one
:class:`Forest` and solved together: the Python work of a step is per level,
not per problem.

Examples
--------
>>> counts = np.array([[[9.0, 1.0], [0.0, 0.0]], [[2.0, 2.0], [1.0, 3.0]]])
>>> forest = Forest([FamilyTree(counts)], ridges=[1.0])
>>> tables = forest.log_tables(fit_forest(forest)[0])
>>> np.exp(tables[0]).round(3)  # no data under (class 0, parent 1): class 0's row
array([[[0.862, 0.138],
        [0.744, 0.256]],
<BLANKLINE>
       [[0.486, 0.514],
        [0.322, 0.678]]])
"""

from __future__ import annotations

import numpy as np
from scipy import sparse

from .._native import hls_fit, row_sums

#: Newton steps at most (the solver converges in 3-10 on real tables).
MAX_STEPS = 100
#: Convergence: the largest change of any coefficient in the last step.
STEP_TOLERANCE = 1e-10
#: The fewest leaves on a level for which :meth:`FamilyTree.pruned` looks for twins (exact either
#: way): on smaller levels the search cost more than the solver saved (arrhythmia's ~180-node
#: tables: 0.35 s more per fit; splice's ~1,500-node levels: a fifth of the solver's time).
TWIN_MIN_LEAVES = 256


class FamilyTree:
    """The nodes with data of one family's tree.

    Parameters
    ----------
    counts : ndarray of shape (n_classes, r_1, ..., r_p, r)
        ``N(c, x_1, ..., x_p, x)``, non-negative (any number of leading axes).
    root : bool, default=True
        Whether the tree has a root node (the child's marginal) above the first
        axis; without it the first axis's nodes are tied to 0 (uniform).
    own : dict, optional
        ``{l: rows}`` for ``l = 1 .. p``: the rows counted at the nodes ``(c, x_1,
        ..., x_{l-1})`` themselves, shape ``(prod(counts.shape[:l]), r)`` (rows whose
        parent ``x_l`` is missing; :func:`own_rows`).
    fold : bool, default=True
        Whether the solver sees each chain of nodes folded into one (see
        :attr:`levels`); the fitted tables are the same either way.

    Attributes
    ----------
    shape : tuple of int
        ``counts.shape``.
    kept : list of ndarray
        Per level, the (flat, C-order) indices of the nodes with data (their own
        or below them).
    parent : list of ndarray
        Per level ``l >= 1``, each kept node's parent as a position in ``kept[l - 1]``.
    node_counts : ndarray of shape (n_nodes, r)
        The rows counted at each kept node itself, level after level (a leaf's
        counts; an inner node's own rows, mostly 0).
    leaf_counts : ndarray of shape (n_kept_leaves, r)
        The counts under each kept leaf.
    levels : list of ndarray
        The solver's nodes, per solver level: positions in the kept nodes numbered
        level after level (the rows of ``node_counts``). A **chain** -- nodes each
        with exactly one kept child and no rows of their own, and the node below
        the last of them -- is one solver node (the bottom one, whose counts and
        children it has) at the level of the chain's top. Only the sum ``s`` of a
        chain's coefficients reaches the likelihood, and ``L`` coefficients of
        sum ``s`` have the least penalty ``ridge / 2 * ||s||^2 / L`` when each is
        ``s / L``: the folded problem is the same problem with ridge ``ridge / L``
        on ``s``, and :meth:`unfold` gives back every node's coefficient. Sparse
        trees are up to half chains (a configuration seen in one row).
    links : list of ndarray
        Per solver level ``>= 1``, each node's parent as a position in the level above
        (ascending).
    chains : list of ndarray
        Per solver level, each node's chain length ``L`` (1: no chain).

    Examples
    --------
    >>> tree = FamilyTree(np.array([[[1.0, 0.0], [0.0, 0.0]], [[0.0, 2.0], [1.0, 1.0]]]))
    >>> [k.tolist() for k in tree.kept], tree.parent[2].tolist()
    ([[0], [0, 1], [0, 2, 3]], [0, 1, 1])
    >>> [k.tolist() for k in tree.levels], [c.tolist() for c in tree.chains]  # class 0 a chain
    ([[0], [2, 3], [4, 5]], [[1], [1, 2], [1, 1]])
    """

    def __init__(self, counts, root=True, own=None, fold=True):
        counts = np.asarray(counts, dtype=float)
        self.shape = counts.shape
        r = counts.shape[-1]
        cards = (1, *counts.shape[:-1]) if root else counts.shape[:-1] or (1,)
        shift = 0 if root else -1  # own[l] sits at tree level l + shift
        rows = [np.zeros((int(np.prod(cards[: level + 1])), r)) for level in range(len(cards))]
        rows[-1] = counts.reshape(-1, r)
        for level, own_rows_at in (own or {}).items():
            rows[level + shift] = np.asarray(own_rows_at, dtype=float).reshape(-1, r)
        totals = [rows[-1].sum(axis=1)]
        for level in range(len(cards) - 2, -1, -1):
            below = totals[-1].reshape(-1, cards[level + 1]).sum(axis=1)
            totals.append(below + rows[level].sum(axis=1))
        totals.reverse()
        self.kept = [np.flatnonzero(total > 0) for total in totals]
        self.parent = [np.zeros(0, dtype=np.intp)]
        for level in range(1, len(cards)):
            above = self.kept[level] // cards[level]  # dense parent index, ascending
            self.parent.append(np.searchsorted(self.kept[level - 1], above))
        self.node_counts = np.concatenate(
            [rows[level][kept] for level, kept in enumerate(self.kept)]
        ).reshape(-1, r)
        self.leaf_counts = rows[-1][self.kept[-1]]
        self.cards = cards
        self._fold_chains(fold)

    def _fold_chains(self, fold) -> None:
        """The solver's levels (:attr:`levels`, :attr:`links`, :attr:`chains`), chains folded,
        and each kept node's solver node and chain length (for :meth:`unfold`)."""
        sizes = [len(kept) for kept in self.kept]
        first = np.concatenate([[0], np.cumsum(sizes)])
        own = row_sums(self.node_counts) > 0 if self.n_nodes else np.zeros(0, dtype=bool)
        passing = []  # per level: one kept child and no own rows (the chain goes on below)
        for level, size in enumerate(sizes):
            below = self.parent[level + 1] if level + 1 < len(sizes) else np.zeros(0, np.intp)
            one_child = np.bincount(below, minlength=size) == 1
            passing.append(one_child & ~own[first[level] : first[level + 1]] & fold)
        anchor, depth, length = [], [], []  # per kept node: its solver parent (flat), level, L
        for level, size in enumerate(sizes):
            if not level:
                anchor.append(np.full(size, -1)), depth.append(np.zeros(size, dtype=np.intp))
                length.append(np.ones(size, dtype=np.intp))
                continue
            up, on = self.parent[level], passing[level - 1][self.parent[level]]
            anchor.append(np.where(on, anchor[-1][up], first[level - 1] + up))
            depth.append(np.where(on, depth[-1][up], depth[-1][up] + 1))
            length.append(np.where(on, length[-1][up] + 1, 1))
        anchor, depth, length = (np.concatenate(a) for a in (anchor, depth, length))
        kept = np.flatnonzero(~np.concatenate(passing))  # the solver's nodes, flat
        # a chain's nodes take its bottom node's coefficient: bottom-up, passing nodes copy
        # their only child's solver node
        self._solver_node = np.arange(len(anchor))
        for level in range(len(sizes) - 2, -1, -1):
            rows = np.flatnonzero(passing[level])
            child = np.searchsorted(self.parent[level + 1], rows) + first[level + 1]
            self._solver_node[first[level] + rows] = self._solver_node[child]
        self.levels, self.links, self.chains = [], [], []
        position = np.full(len(anchor), -1)
        for level in range(int(depth.max(initial=-1)) + 1):
            nodes = kept[depth[kept] == level]
            link = position[anchor[nodes]] if level else np.full(len(nodes), -1)
            nodes = nodes[np.argsort(link, kind="stable")]
            position[nodes] = np.arange(len(nodes))
            self.levels.append(nodes)
            self.links.append(np.sort(link) if level else np.zeros(0, dtype=np.intp))
            self.chains.append(length[nodes])
        self._chain = length

    def spread(self, solved) -> np.ndarray:
        """``solved`` itself: the tree's own solver nodes (as :meth:`SolverTree.spread`)."""
        return solved

    def unfold(self, solved) -> np.ndarray:
        """Every kept node's coefficients from the solver nodes' (:attr:`levels`).

        Parameters
        ----------
        solved : ndarray of shape (n_solver_nodes, r)
            The solver nodes' coefficients, level after level.

        Returns
        -------
        ndarray of shape (n_nodes, r)
            The kept nodes' coefficients, level after level: each node of a chain of
            length ``L`` and sum ``s`` gets ``s / L``.
        """
        flat = np.zeros((self.n_nodes, self.n_states))
        flat[np.concatenate(self.levels)] = solved
        bottom = self._solver_node
        return flat[bottom] / self._chain[bottom][:, None]

    def log_table(self, solved) -> np.ndarray:
        """The full ``log P(x | c, x_1, ..., x_p)`` from the solver nodes' coefficients.

        A configuration without data takes the row of its deepest ancestor with data
        (its own coefficients are 0); a tree without data is uniform.

        Parameters
        ----------
        solved : ndarray of shape (n_solver_nodes, r)
            The solver nodes' coefficients, level after level (:attr:`levels`).

        Returns
        -------
        ndarray of shape ``shape``

        Examples
        --------
        >>> tree = FamilyTree(np.array([[2.0, 0.0], [0.0, 0.0]]))  # class 1 without data
        >>> solved = np.zeros((sum(len(nodes) for nodes in tree.levels), 2))
        >>> solved[-1] = [1.0, -1.0]  # the root and class 0, one chain: 0.5 each
        >>> np.exp(tree.log_table(solved)).round(3)  # class 1 takes the root's row
        array([[0.881, 0.119],
               [0.731, 0.269]])
        """
        uniform = np.full((1, self.n_states), -np.log(self.n_states))
        coefficients = self.unfold(solved)
        bounds = np.cumsum([len(kept) for kept in self.kept])[:-1]
        mu = np.split(coefficients, bounds)
        for level in range(1, len(mu)):
            mu[level] = mu[level] + np.take(mu[level - 1], self.parent[level], axis=0)
        stacked = [uniform] + [log_softmax_rows(m) for m in mu]
        where = np.zeros(1, dtype=np.intp)  # each dense node's row in `stacked`
        first = 1
        for level, card in enumerate(self.cards):
            where = np.repeat(where, card) if level else np.zeros(card, dtype=np.intp)
            kept = self.kept[level]
            where[kept] = first + np.arange(len(kept))
            first += len(kept)
        return np.take(np.concatenate(stacked), where, axis=0).reshape(self.shape)

    def pruned(self, node_counts):
        """The solver's nodes with rows under them in ``node_counts``, and where the others' go.

        A node without rows under it has coefficient 0 at the optimum and the
        distribution of its parent: a cross-validation fold's problem (its training
        rows on this tree's nodes) is solved on the nodes it has data under, and a
        row held out at a dropped node is scored at its nearest kept ancestor. The
        top level is always kept. **Twins**: leaves (in the fold) of one parent with
        the same counts and chain length have the same coefficients at the optimum
        (the problem is strictly convex and symmetric in them), and ``w`` of them are
        one leaf with ``w`` times the counts and the ridge: the same objective, and
        the same Newton steps (each block scales by ``w``, its inverse by ``1 / w``).
        The first stands for all (its chain length over ``w`` in ``chains``), the
        others' rows lifted to it: an identifier-like parent (splice's
        ``Instance_name``) makes thousands of one-row leaves, a handful per parent.

        Parameters
        ----------
        node_counts : ndarray of shape (n_nodes, r)
            Counts on this tree's kept nodes (as :attr:`node_counts`).

        Returns
        -------
        tree : SolverTree
            The kept solver nodes (:attr:`levels`, :attr:`links`, :attr:`chains`), for
            :class:`Forest` (a twins' stand-in's ``chains`` is its chain length over
            their number: the divisor of its ridge).
        lift : callable
            ``lift(values)``: an ``(n_nodes, r)`` array with each dropped node's rows
            added to its nearest kept ancestor's, a twin's to its stand-in's (a copy);
            :class:`Forest` takes the lifted training counts.

        Examples
        --------
        >>> tree = FamilyTree(np.array([[[1.0, 0.0], [0.0, 0.0]], [[0.0, 2.0], [1.0, 1.0]]]))
        >>> train = tree.node_counts.copy()
        >>> train[-1] = 0.0  # class 1, parent 1 held out
        >>> pruned, lift = tree.pruned(train)
        >>> [n.tolist() for n in pruned.levels], [n.tolist() for n in tree.levels]
        ([[0], [2, 3], [4]], [[0], [2, 3], [4, 5]])
        >>> lift(tree.node_counts)[2].tolist()  # class 1 (row 2) gets the held-out row
        [1.0, 1.0]
        """
        values = np.asarray(node_counts, dtype=float).reshape(self.n_nodes, self.n_states)
        totals = row_sums(values)
        below = [totals[nodes] for nodes in self.levels]
        for level in range(self.depth - 1, 0, -1):
            below[level - 1] += np.bincount(
                self.links[level], below[level], minlength=len(self.levels[level - 1])
            )
        keep = [np.ones(len(self.levels[0]), dtype=bool)] + [b > 0 for b in below[1:]]
        # twins: kept leaves of one parent with the same counts and chain length have the same
        # optimum; the first of them stands for all (counts and ridge times their number w)
        twin = [None] * self.depth  # per level: each node's stand-in (itself if none)
        weight = [None] * self.depth  # per level: each stand-in's number of twins (None: 1)
        for level in range(1, self.depth):
            if len(self.levels[level]) < TWIN_MIN_LEAVES:  # the search costs more than it saves
                continue
            has_child = np.zeros(len(self.levels[level]), dtype=bool)
            if level + 1 < self.depth:
                has_child[self.links[level + 1][keep[level + 1]]] = True
            leaves = np.flatnonzero(keep[level] & ~has_child)
            if len(leaves) < TWIN_MIN_LEAVES:
                continue
            key = np.column_stack(
                [
                    self.links[level][leaves],
                    self.chains[level][leaves],
                    values[self.levels[level][leaves]],
                ]
            )
            first, group, size = _equal_rows(key)
            if len(first) == len(leaves):
                continue
            stand_in = np.arange(len(self.levels[level]))
            stand_in[leaves] = leaves[first[group]]
            twin[level] = stand_in
            keep[level][leaves] = False
            keep[level][leaves[first]] = True
            weight[level] = np.ones(len(self.levels[level]))
            weight[level][leaves[first]] = size
        if all(kept.all() for kept in keep):
            whole = SolverTree(self.levels, self.links, self.chains, self.n_states)
            return whole, lambda node_values: np.array(node_values, dtype=float)
        levels, links, chains = [], [], []
        for level, kept in enumerate(keep):
            if not kept.any():
                break
            levels.append(self.levels[level][kept])
            chain = self.chains[level][kept]
            chains.append(chain if weight[level] is None else chain / weight[level][kept])
            position = np.cumsum(keep[level - 1]) - 1 if level else None
            links.append(position[self.links[level][kept]] if level else self.links[0])
        twins = any(t is not None for t in twin)
        solver_tree = SolverTree(levels, links, chains, self.n_states, twins, (keep, twin))
        return solver_tree, self._lift(keep, twin)

    def _lift(self, keep, twin):
        """:meth:`pruned`'s ``lift``: each node's rows summed at its destination (a kept node's
        its own, a twin's its stand-in's, a dropped node's its parent's destination)."""
        destination = np.arange(self.n_nodes)
        for level in range(1, self.depth):  # top down: a dropped node's nearest kept ancestor
            dropped = ~keep[level]
            if not dropped.any():
                continue
            nodes = self.levels[level]
            to = destination[self.levels[level - 1][self.links[level]]]
            if twin[level] is not None:  # a twin's rows go to its stand-in
                merged = dropped & (twin[level] != np.arange(len(dropped)))
                to = np.where(merged, nodes[twin[level]], to)
            destination[nodes[dropped]] = to[dropped]
        cells = (destination[:, None] * self.n_states + np.arange(self.n_states)).ravel()

        def lift(node_values):
            values = np.asarray(node_values, dtype=float).ravel()
            lifted = np.bincount(cells, values, minlength=values.size)
            return lifted.reshape(self.n_nodes, self.n_states)

        return lift

    def merged(self):
        """The solver's nodes with twins solved as one, and the counts on them, for a fit to
        all of :attr:`node_counts`.

        :meth:`pruned` of the tree's own counts: every node has data, so only twins (on
        levels of at least ``TWIN_MIN_LEAVES`` leaves) change; the fitted coefficients are
        the unmerged fit's to the solver's tolerance (:meth:`SolverTree.spread` gives each
        twin its stand-in's).

        Returns
        -------
        tree : FamilyTree or SolverTree
            This tree if no level is large enough for twins.
        node_counts : ndarray of shape (n_nodes, r)
            The counts, a twin's added to its stand-in's.

        Examples
        --------
        >>> tree = FamilyTree(np.array([[[1.0, 0.0], [0.0, 2.0]]]))
        >>> tree.merged()[0] is tree  # two leaves: no twins looked for
        True
        """
        if max((len(nodes) for nodes in self.levels), default=0) < TWIN_MIN_LEAVES:
            return self, self.node_counts
        solver_tree, lift = self.pruned(self.node_counts)
        if not solver_tree.twins:
            return self, self.node_counts
        return solver_tree, lift(self.node_counts)

    @property
    def depth(self) -> int:
        """The number of the solver's levels."""
        return len(self.levels)

    @property
    def n_states(self) -> int:
        return self.shape[-1]

    @property
    def n_nodes(self) -> int:
        return sum(len(kept) for kept in self.kept)


class SolverTree:
    """The solver's nodes of a tree (:attr:`FamilyTree.levels`, ``links``, ``chains``) alone:
    what :class:`Forest` reads, e.g. a fold's nodes with data (:meth:`FamilyTree.pruned`).

    ``kept`` (None: all of the tree's solver nodes): ``(keep, twin)``, per level of the full
    tree's solver nodes whether each is here and each one's twins' stand-in (None: no twins
    on that level), for :meth:`spread`.
    """

    def __init__(self, levels, links, chains, n_states, twins=False, kept=None):
        self.levels, self.links, self.chains, self.n_states = levels, links, chains, n_states
        #: Whether a node stands for twins (:meth:`FamilyTree.pruned`): the counts on the full
        #: tree's nodes must then be lifted to it
        self.twins = twins
        self.kept = kept

    @property
    def depth(self) -> int:
        return len(self.levels)

    def spread(self, solved) -> np.ndarray:
        """The full tree's solver coefficients (as :meth:`FamilyTree.unfold` takes them) from
        these nodes' (level after level): a twin has its stand-in's, a dropped node 0."""
        if self.kept is None:
            return solved
        keep, twin = self.kept
        source, first = [], 0  # each full solver node's row of `solved` (-1: 0)
        for level, kept in enumerate(keep):
            at = np.where(kept, first + np.cumsum(kept) - 1, -1)
            first += int(kept.sum())
            source.append(at if twin[level] is None else np.where(kept, at, at[twin[level]]))
        padded = np.concatenate([solved, np.zeros((1, self.n_states))])
        return padded[np.concatenate(source)]  # -1: the zero row


def _equal_rows(values):
    """The groups of equal rows of a 2-D array: each group's first row, each row's group,
    each group's size (np.unique(axis=0) sorts the rows as bytes, several times slower)."""
    order = np.lexsort(values.T[::-1])
    ordered = values[order]
    starts = np.ones(len(order), dtype=bool)
    starts[1:] = (ordered[1:] != ordered[:-1]).any(axis=1)
    group = np.empty(len(order), dtype=np.intp)
    group[order] = np.cumsum(starts) - 1
    return order[starts], group, np.diff(np.append(np.flatnonzero(starts), len(order)))


def own_rows(counts, prefixes, name="smoothing") -> dict:
    """The rows a family's tree counts at its inner nodes, from its shorter families' counts.

    A training row whose child is observed but whose parent ``x_l`` is missing
    counts at the node of its observed prefix ``(c, x_1, ..., x_{l-1})``. The
    shorter families ``N(c, x)``, ``N(c, x_1, x)``, ..., each counted over the rows
    where its own variables are observed, give them: a prefix's rows minus those
    the next longer family counts.

    Parameters
    ----------
    counts : ndarray of shape (n_classes, r_1, ..., r_p, r)
        The family's counts over its complete rows.
    prefixes : list of ndarray
        ``p`` arrays: the counts of the families of the first ``0, 1, ..., p - 1``
        parents.
    name : str
        The smoothing method, for the errors.

    Returns
    -------
    dict
        ``{l: rows}`` for ``l = 1 .. p``, ``rows`` of shape ``(prod(counts.shape[:l]),
        r)``: those counted at the nodes ``(c, x_1, ..., x_{l-1})``.

    Examples
    --------
    >>> counts = np.array([[[2.0, 0.0], [0.0, 1.0]], [[1.0, 1.0], [0.0, 0.0]]])
    >>> own_rows(counts, [np.array([[3.0, 1.0], [1.0, 2.0]])])[1]
    array([[1., 0.],
           [0., 1.]])
    """
    counts = np.asarray(counts, dtype=float)
    K, cards = counts.shape[-1], counts.shape[:-1]
    if len(prefixes) != len(cards) - 1:
        raise ValueError(
            f"{name}: a table with {len(cards) - 1} feature parents has {len(cards) - 1} "
            f"shorter families, got {len(prefixes)}."
        )
    longer, own = counts, {}
    for level in range(len(cards) - 1, 0, -1):  # prefix of level - 1 parents: level's nodes
        shorter = np.asarray(prefixes[level - 1], dtype=float)
        if shorter.shape != (*cards[:level], K):
            raise ValueError(
                f"{name}: the family of the first {level - 1} parents has shape "
                f"{shorter.shape}, expected {(*cards[:level], K)}."
            )
        rest = shorter - longer.sum(axis=-2)
        rounding = 1e-9 * (1.0 + np.abs(shorter))  # weighted rows' sums differ by rounding
        if (rest < -rounding).any():
            raise ValueError(
                f"{name}: a shorter family counts fewer rows than its longer one; the counts of "
                "the prefixes must be over the rows where their own variables are observed."
            )
        own[level] = np.where(rest > rounding, rest, 0.0).reshape(-1, K)
        longer = shorter
    return own


def _row_max(values: np.ndarray) -> np.ndarray:
    if values.shape[1] > 8:
        return values.max(axis=1)
    top = values[:, 0].copy()
    for j in range(1, values.shape[1]):
        np.maximum(top, values[:, j], out=top)
    return top


def log_softmax_rows(values: np.ndarray) -> np.ndarray:
    """``log softmax`` of each row of a 2-D array.

    Examples
    --------
    >>> np.exp(log_softmax_rows(np.array([[0.0, np.log(3.0)]])))
    array([[0.25, 0.75]])
    """
    shifted = values - _row_max(values)[:, None]
    return shifted - np.log(row_sums(np.exp(shifted)))[:, None]


class Forest:
    """Trees with the same number of child states, stacked level by level for one solve.

    Each problem is a :class:`FamilyTree`, the counts at its nodes (by default
    its own; a cross-validation passes a fold's training counts on the full
    tree's nodes) and its ridge strength. Within a level, the nodes of problems
    with deeper trees come first (they may have children), then the leaves of the
    problems whose trees end there.

    Parameters
    ----------
    trees : list of FamilyTree
    ridges : sequence of float
        The ridge strength of each problem (> 0); :meth:`set_ridges` changes them.
    node_counts : list of ndarray, optional
        The counts at each tree's kept nodes, level after level (default
        ``tree.node_counts``).

    Examples
    --------
    >>> tree = FamilyTree(np.array([[[3.0, 1.0]], [[0.0, 2.0]]]))
    >>> forest = Forest([tree, FamilyTree(np.array([[1.0, 1.0]]))], ridges=[1.0, 2.0])
    >>> forest.sizes, forest.inner  # each class above one row: chains folded
    ([2, 2], [1, 0])
    >>> Forest([FamilyTree(np.array([[[3.0, 1.0]], [[0.0, 2.0]]]), fold=False)], [1.0]).sizes
    [1, 2, 2]
    """

    def __init__(self, trees, ridges, node_counts=None):
        self.trees = list(trees)
        self.n_states = self.trees[0].n_states
        # deepest first: at every level the nodes with children precede the leaves
        self.order = sorted(range(len(trees)), key=lambda i: -trees[i].depth)
        self.sizes, self.inner, self.parent, self.problem, self.chains = [], [], [], [], []
        self.offsets = []  # per level, each problem's first node
        for level in range(trees[self.order[0]].depth):
            members = [i for i in self.order if trees[i].depth > level]
            sizes = np.array([len(trees[i].levels[level]) for i in members])
            first = np.concatenate([[0], np.cumsum(sizes)])
            self.offsets.append(dict(zip(members, first[:-1].tolist(), strict=True)))
            self.sizes.append(int(first[-1]))
            self.inner.append(
                int(
                    sum(
                        s for i, s in zip(members, sizes, strict=True) if trees[i].depth > level + 1
                    )
                )
            )
            self.problem.append(np.repeat(members, sizes))
            self.chains.append(np.concatenate([trees[i].chains[level] for i in members]))
            if not level:
                self.parent.append(None)
                continue
            above = self.offsets[level - 1]
            parent = np.concatenate([trees[i].links[level] + above[i] for i in members])
            self.parent.append(parent.astype(np.intp))
        self._children = self._flat = self._flat_counts = None
        self.set_ridges(ridges)
        self.counts = self.stack_nodes(
            [tree.node_counts for tree in trees] if node_counts is None else node_counts
        )
        self.totals = [row_sums(c) for c in self.counts]

    @property
    def depth(self) -> int:
        return len(self.sizes)

    def set_ridges(self, ridges) -> None:
        """Give each problem its ridge strength (the nodes keep their layout); a folded chain
        of ``L`` nodes has ``ridge / L`` (:attr:`FamilyTree.levels`)."""
        ridges = np.asarray(ridges, dtype=float)
        self.ridge = [
            (ridges[problem] / chains)[:, None]
            for problem, chains in zip(self.problem, self.chains, strict=True)
        ]
        self._flat_ridge = None

    @property
    def children(self) -> list:
        """Per level ``l >= 1``, the (parent, child) indicator: ``children[l] @ x`` sums ``x``
        over each level-``l - 1`` node's children (None on the top level)."""
        if self._children is None:
            self._children = [None] + [
                sparse.csr_array(
                    (np.ones(len(parent)), (parent, np.arange(len(parent)))),
                    shape=(self.inner[level - 1], len(parent)),
                )
                for level, parent in enumerate(self.parent[1:], start=1)
            ]
        return self._children

    def flat_counts(self):
        """The nodes' counts as one C-ordered ``(nodes * states)`` array, and their totals."""
        if self._flat_counts is None:
            self._flat_counts = (
                np.ascontiguousarray(np.concatenate(self.counts), dtype=float).ravel(),
                np.ascontiguousarray(np.concatenate(self.totals), dtype=float),
            )
        return self._flat_counts

    def flat_ridge(self) -> np.ndarray:
        """Every node's ridge strength, nodes numbered as in :meth:`flat_structure`."""
        if self._flat_ridge is None:
            self._flat_ridge = np.ascontiguousarray(np.concatenate(self.ridge)[:, 0])
        return self._flat_ridge

    def flat_structure(self):
        """The nodes numbered level after level: ``(parent, child_start, child_stop)``.

        ``parent[v]`` is -1 on the top level; node ``v``'s children are
        ``child_start[v] .. child_stop[v] - 1`` (none: a leaf). Node ``v``'s counts
        are row ``v`` of :meth:`flat_counts`. All int64.
        """
        if self._flat is None:
            first = np.concatenate([[0], np.cumsum(self.sizes)])
            parent, start, stop = [], [], []
            for level, size in enumerate(self.sizes):
                up = self.parent[level]
                parent.append(np.full(size, -1) if up is None else up + first[level - 1])
                local = np.arange(size)
                if level + 1 < self.depth:
                    below = self.parent[level + 1]
                    lo = np.searchsorted(below, local, side="left")
                    hi = np.searchsorted(below, local, side="right")
                else:
                    lo = hi = np.zeros(size, dtype=np.intp)
                start.append(first[level + 1] + lo)
                stop.append(first[level + 1] + hi)
            self._flat = tuple(
                np.ascontiguousarray(np.concatenate(part), dtype=np.int64)
                for part in (parent, start, stop)
            )
        return self._flat

    def stack_nodes(self, per_problem) -> list:
        """Per-problem arrays over each tree's kept nodes, stacked per level as the nodes are.

        Parameters
        ----------
        per_problem : list of ndarray
            One ``(n_nodes, r)`` array per problem (its kept nodes level after level,
            as :attr:`FamilyTree.node_counts`), in the order of ``trees``; the solver's
            nodes are taken (a folded chain's upper nodes have no rows of their own).

        Returns
        -------
        list of ndarray
            One ``(nodes, r)`` array per level.
        """
        parts = {}
        for i, tree in enumerate(self.trees):
            values = np.asarray(per_problem[i], dtype=float).reshape(-1, self.n_states)
            parts[i] = [values[nodes] for nodes in tree.levels]
        return [
            np.concatenate(
                [parts[i][level] for i in self.order if self.trees[i].depth > level]
            ).reshape(-1, self.n_states)
            for level in range(self.depth)
        ]

    def zeros(self) -> list:
        """Coefficients of 0 (every table uniform), one array per level."""
        return [np.zeros((size, self.n_states)) for size in self.sizes]

    def predictors(self, beta) -> list:
        """``mu`` per level: the sum of the coefficients along each node's path."""
        mu = [beta[0]]
        for level in range(1, self.depth):
            mu.append(np.take(mu[-1], self.parent[level], axis=0) + beta[level])
        return mu

    def node_log_probabilities(self, beta) -> list:
        """``log softmax(mu)`` at the nodes of each level."""
        return [log_softmax_rows(m) for m in self.predictors(beta)]

    def gather_up(self, node_values) -> list:
        """Per level, the sums of ``node_values`` (one array per level) over each subtree."""
        sums = [None] * self.depth
        for level in range(self.depth - 1, -1, -1):
            sums[level] = node_values[level].copy()
            if level < self.depth - 1:
                sums[level][: self.inner[level]] += self.children[level + 1] @ sums[level + 1]
        return sums

    def objective(self, beta, log_p) -> float:
        """The problems' penalised negative log-likelihoods, summed."""
        value = 0.0
        for level in range(self.depth):
            value += float((self.ridge[level] * beta[level] ** 2).sum()) / 2
            value -= float((self.counts[level] * log_p[level]).sum())
        return value

    def node_scores(self, log_p, held_out) -> np.ndarray:
        """Each problem's ``sum of held_out * log_p`` over its nodes (both stacked per level).

        Examples
        --------
        >>> forest = Forest([FamilyTree(np.array([[1.0, 1.0]]))], ridges=[1.0])
        >>> log_p = forest.node_log_probabilities(forest.zeros())
        >>> forest.node_scores(log_p, forest.stack_nodes([np.array([[0.0, 0.0], [2.0, 0.0]])]))
        array([-1.38629436])
        """
        value = np.zeros(len(self.trees))
        for level, level_log_p in enumerate(log_p):
            rows = row_sums(held_out[level] * level_log_p)
            value += np.bincount(self.problem[level], rows, minlength=len(self.trees))
        return value

    def solver_coefficients(self, beta, i) -> np.ndarray:
        """Problem ``i``'s rows of ``beta`` (one array per level), its solver nodes level after
        level (:attr:`FamilyTree.levels`)."""
        solved = [
            beta[level][self.offsets[level][i] :][: len(nodes)]
            for level, nodes in enumerate(self.trees[i].levels)
        ]
        return np.concatenate(solved).reshape(-1, self.n_states)

    def log_tables(self, beta) -> list:
        """Each problem's full ``log P(x | c, x_1, ..., x_p)``, in the order of ``trees``.

        A configuration without data takes the row of its deepest ancestor with data
        (its own coefficients are 0); a tree without data is uniform.
        """
        return [
            tree.log_table(self.solver_coefficients(beta, i)) for i, tree in enumerate(self.trees)
        ]


def fit_forest(forest, beta=None, tolerance=STEP_TOLERANCE):
    """The coefficients minimising each problem's penalised negative log-likelihood.

    Parameters
    ----------
    forest : Forest
    beta : list of ndarray, optional
        Starting coefficients (default 0), e.g. the solution for a nearby ridge.
    tolerance : float, default=STEP_TOLERANCE
        Stop when no coefficient moved more than this in the last step.

    Returns
    -------
    beta : list of ndarray
        The coefficients per level.
    log_p : list of ndarray
        ``log P`` at the nodes of each level (as :meth:`Forest.node_log_probabilities`).

    Examples
    --------
    >>> forest = Forest([FamilyTree(np.array([[3.0, 1.0]]))], ridges=[1e-9])
    >>> beta, log_p = fit_forest(forest)
    >>> np.exp(log_p[-1]).round(6)
    array([[0.75, 0.25]])
    """
    beta = forest.zeros() if beta is None else beta
    return hls_fit(forest, beta, tolerance, MAX_STEPS)
