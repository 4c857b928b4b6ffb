"""Ridge-penalised log-linear tables over a family's tree: the engine of :class:`~.hls.HLS`.

A family's counts ``N(c, x_1, ..., x_p, x)`` define a tree over its conditioning
variables in order: the root (the child's marginal), a node per class below it,
then a node per configuration ``(c, x_1, ..., x_l)`` at level ``l``; the leaves
are the table's rows. Every node ``v`` has a coefficient vector ``beta_v`` (one
entry per child state); a node's linear predictor ``mu_v`` is the sum of the
coefficients on its path from the root, and its distribution is
``softmax(mu_v)``. The coefficients minimise::

    - sum over leaves and states of N(leaf, x) log softmax(mu_leaf)_x
    + ridge / 2 * sum over nodes of ||beta_v||^2

(a multinomial logistic regression on the counts, never on the rows). A node
without data has coefficient 0 at the optimum, so only the nodes with data are
free: a configuration without data takes the distribution of its deepest
ancestor that has data.

**The solver** is Newton's method with the exact gradient and an approximate
Hessian that the tree lets us invert exactly. In the predictors ``mu`` the
problem is a Gaussian tree: the ridge ties each node to its parent, the data sit
at the leaves with Hessian ``n (diag p - p p^T)`` (a diagonal minus a rank-one
matrix). Eliminating the tree from the leaves up keeps every node's block a
diagonal minus a rank-one matrix; where several children meet, their rank-one
parts are merged into one that subtracts no more than their sum
(Cauchy-Schwarz), so every block stays positive definite and at least the true
one. A step is an upward and a downward pass of element-wise operations on
``(nodes, states)`` arrays, one pass per level; it is Newton's step on a single
level and wherever sibling distributions agree, and the iteration converges in
3-10 steps (a backtracking line search keeps every step a descent).

**Batches.** Many problems with the same number of child states (the families
of a model, the folds of a cross-validation) are stacked into one
:class:`Forest` and solved together: the Python work of a step is per level,
not per problem.

Examples
--------
>>> counts = np.array([[[9.0, 1.0], [0.0, 0.0]], [[2.0, 2.0], [1.0, 3.0]]])
>>> forest = Forest([FamilyTree(counts)], ridges=[1.0])
>>> tables = forest.log_tables(fit_coefficients(forest))
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

#: Newton steps at most (the solver converges in 3-10 on real tables).
MAX_STEPS = 100
#: Convergence: the largest change of any coefficient in the last step.
STEP_TOLERANCE = 1e-10


class FamilyTree:
    """The nodes with data of one family's tree.

    Parameters
    ----------
    counts : ndarray of shape (n_classes, r_1, ..., r_p, r)
        ``N(c, x_1, ..., x_p, x)``, non-negative (any number of leading axes).
    root : bool, default=True
        Whether the tree has a root node (the child's marginal) above the first
        axis; without it the first axis's nodes are tied to 0 (uniform).

    Attributes
    ----------
    shape : tuple of int
        ``counts.shape``.
    kept : list of ndarray
        Per level, the (flat, C-order) indices of the nodes with data.
    parent : list of ndarray
        Per level ``l >= 1``, each kept node's parent as a position in ``kept[l - 1]``.
    leaf_counts : ndarray of shape (n_kept_leaves, r)
        The counts under each kept leaf.

    Examples
    --------
    >>> tree = FamilyTree(np.array([[[1.0, 0.0], [0.0, 0.0]], [[0.0, 2.0], [1.0, 1.0]]]))
    >>> [k.tolist() for k in tree.kept], tree.parent[2].tolist()
    ([[0], [0, 1], [0, 2, 3]], [0, 1, 1])
    """

    def __init__(self, counts, root=True):
        counts = np.asarray(counts, dtype=float)
        self.shape = counts.shape
        r = counts.shape[-1]
        cards = (1, *counts.shape[:-1]) if root else counts.shape[:-1] or (1,)
        totals = [counts.reshape(-1, r).sum(axis=1)]
        for card in cards[:0:-1]:
            totals.append(totals[-1].reshape(-1, card).sum(axis=1))
        totals.reverse()
        self.kept = [np.flatnonzero(total > 0) for total in totals]
        self.parent = [np.zeros(0, dtype=np.intp)]
        for level in range(1, len(cards)):
            above = self.kept[level] // cards[level]  # dense parent index, ascending
            self.parent.append(np.searchsorted(self.kept[level - 1], above))
        self.leaf_counts = counts.reshape(-1, r)[self.kept[-1]]
        self.cards = cards

    @property
    def depth(self) -> int:
        """The number of levels."""
        return len(self.kept)

    @property
    def n_states(self) -> int:
        return self.shape[-1]

    @property
    def n_nodes(self) -> int:
        return sum(len(kept) for kept in self.kept)


def _row_sums(values: np.ndarray) -> np.ndarray:
    # numpy's sum over short rows costs ~10x a loop over the columns; a matrix product
    # would call BLAS, whose threads only wait on a busy machine
    if values.shape[1] > 8:
        return np.einsum("ij->i", values)
    total = values[:, 0].copy()
    for j in range(1, values.shape[1]):
        total += values[:, j]
    return total


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
    return shifted - np.log(_row_sums(np.exp(shifted)))[:, None]


class Forest:
    """Trees with the same number of child states, stacked level by level for one solve.

    Each problem is a :class:`FamilyTree`, the counts at its leaves (by default
    its own; a cross-validation passes a fold's training counts on the full
    tree's nodes) and its ridge strength. Within a level, the nodes of problems
    with deeper trees come first (they have children), then the leaves of the
    problems whose trees end there.

    Parameters
    ----------
    trees : list of FamilyTree
    ridges : sequence of float
        The ridge strength of each problem (> 0); :meth:`set_ridges` changes them.
    leaf_counts : list of ndarray, optional
        The counts at each tree's kept leaves (default ``tree.leaf_counts``).

    Examples
    --------
    >>> tree = FamilyTree(np.array([[[3.0, 1.0]], [[0.0, 2.0]]]))
    >>> forest = Forest([tree, FamilyTree(np.array([[1.0, 1.0]]))], ridges=[1.0, 2.0])
    >>> forest.sizes, forest.inner
    ([2, 3, 2], [2, 2, 0])
    """

    def __init__(self, trees, ridges, leaf_counts=None):
        self.trees = list(trees)
        self.n_states = self.trees[0].n_states
        # deepest first: at every level the nodes with children precede the leaves
        self.order = sorted(range(len(trees)), key=lambda i: -trees[i].depth)
        self.sizes, self.inner, self.parent, self.children, self.problem = [], [], [], [], []
        self.offsets = []  # per level, each problem's first node
        for level in range(trees[self.order[0]].depth):
            members = [i for i in self.order if trees[i].depth > level]
            sizes = np.array([len(trees[i].kept[level]) for i in members])
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
            if not level:
                self.parent.append(None)
                self.children.append(None)
                continue
            above = self.offsets[level - 1]
            parent = np.concatenate([trees[i].parent[level] + above[i] for i in members])
            self.parent.append(parent.astype(np.intp))
            # the sums over each node's children: a product with the (node, child) indicator
            self.children.append(
                sparse.csr_array(
                    (np.ones(len(parent)), (parent, np.arange(len(parent)))),
                    shape=(self.inner[level - 1], len(parent)),
                )
            )
        self.set_ridges(ridges)
        self.counts = self.stack_leaves(
            [tree.leaf_counts for tree in trees] if leaf_counts is None else leaf_counts
        )
        self.totals = [_row_sums(c) for c in self.counts]

    @property
    def depth(self) -> int:
        return len(self.sizes)

    def set_ridges(self, ridges) -> None:
        """Give each problem its ridge strength (the nodes keep their layout)."""
        ridges = np.asarray(ridges, dtype=float)
        self.ridge = [ridges[problem][:, None] for problem in self.problem]

    def stack_leaves(self, per_problem) -> list:
        """Per-problem arrays over each tree's kept leaves, stacked per level as the leaves are.

        Parameters
        ----------
        per_problem : list of ndarray
            One ``(n_kept_leaves, r)`` array per problem, in the order of ``trees``.

        Returns
        -------
        list of ndarray
            One array per level (empty where no tree ends).
        """
        stacked = []
        for level in range(self.depth):
            ending = [i for i in self.order if self.trees[i].depth == level + 1]
            parts = [np.asarray(per_problem[i], dtype=float) for i in ending]
            stacked.append(np.concatenate(parts) if parts else np.zeros((0, self.n_states)))
        return stacked

    def zeros(self) -> list:
        """Coefficients of 0 (every table uniform), one array per level."""
        return [np.zeros((size, self.n_states)) for size in self.sizes]

    def predictors(self, beta) -> list:
        """``mu`` per level: the sum of the coefficients along each node's path."""
        mu = [beta[0]]
        for level in range(1, self.depth):
            mu.append(np.take(mu[-1], self.parent[level], axis=0) + beta[level])
        return mu

    def leaf_log_probabilities(self, beta) -> list:
        """``log softmax(mu)`` at the leaves of each level."""
        mu = self.predictors(beta)
        return [log_softmax_rows(m[inner:]) for m, inner in zip(mu, self.inner, strict=True)]

    def gather_up(self, leaf_values) -> list:
        """Per level, the sums of ``leaf_values`` (one array per level) over each subtree."""
        sums = [None] * self.depth
        for level in range(self.depth - 1, -1, -1):
            below = [] if level == self.depth - 1 else [self.children[level + 1] @ sums[level + 1]]
            sums[level] = np.concatenate([*below, leaf_values[level]])
        return sums

    def objective(self, beta, log_p) -> float:
        """The problems' penalised negative log-likelihoods, summed."""
        value = 0.0
        for level in range(self.depth):
            value += float((self.ridge[level] * beta[level] ** 2).sum()) / 2
            value -= float((self.counts[level] * log_p[level]).sum())
        return value

    def leaf_scores(self, beta, held_out) -> np.ndarray:
        """Each problem's ``sum of held_out * log P`` over its leaves (held_out stacked per level).

        Examples
        --------
        >>> forest = Forest([FamilyTree(np.array([[1.0, 1.0]]))], ridges=[1.0])
        >>> forest.leaf_scores(forest.zeros(), forest.stack_leaves([np.array([[2.0, 0.0]])]))
        array([-1.38629436])
        """
        value = np.zeros(len(self.trees))
        for level, log_p in enumerate(self.leaf_log_probabilities(beta)):
            rows = _row_sums(held_out[level] * log_p)
            problem = self.problem[level][self.inner[level] :]
            value += np.bincount(problem, rows, minlength=len(self.trees))
        return value

    def log_tables(self, beta) -> list:
        """Each problem's full ``log P(x | c, x_1, ..., x_p)``, in the order of ``trees``.

        A configuration without data takes the row of its deepest ancestor with data
        (its own coefficients are 0); a tree without data is uniform.
        """
        rows = [log_softmax_rows(m) for m in self.predictors(beta)]
        uniform = np.full((1, self.n_states), -np.log(self.n_states))
        tables = []
        for i, tree in enumerate(self.trees):
            stacked = [uniform]
            where = np.zeros(1, dtype=np.intp)  # each dense node's row in `stacked`
            first = 1
            for level, card in enumerate(tree.cards):
                where = np.repeat(where, card) if level else np.zeros(card, dtype=np.intp)
                kept = tree.kept[level]
                start = self.offsets[level][i] if len(kept) else 0
                stacked.append(rows[level][start : start + len(kept)])
                where[kept] = first + np.arange(len(kept))
                first += len(kept)
            table = np.take(np.concatenate(stacked), where, axis=0)
            tables.append(table.reshape(tree.shape))
        return tables


def _merge_factors(forest, p_leaves):
    """The blocks of the approximate Hessian's elimination, leaves up.

    Each node's block is ``diag(d) - u u^T`` (plus ``ridge * I``); its inverse is
    ``diag(1 / (d + ridge)) + g z z^T`` with ``z = u / (d + ridge)``, and the message
    it sends its parent is ``diag(ridge d / (d + ridge)) - (ridge sqrt(g) z)(...)^T``.
    """
    factors = [None] * forest.depth
    d_below = u_below = None
    for level in range(forest.depth - 1, -1, -1):
        ridge, inner = forest.ridge[level], forest.inner[level]
        n = forest.totals[level][:, None]
        p = p_leaves[level]
        d, u = n * p, np.sqrt(n) * p
        if d_below is not None:
            children = forest.children[level + 1]
            # the children's rank-one parts merged into one: sum_c |u_c| u_c / sqrt(sum |u_c|^2)
            size = np.sqrt(_row_sums(u_below**2))
            norm = np.sqrt(children @ size**2)
            merged = children @ (size[:, None] * u_below) / np.where(norm > 0, norm, 1.0)[:, None]
            d = np.concatenate([children @ d_below, d])
            u = np.concatenate([merged, u])
        scale = d + ridge
        z = u / scale
        deficit = np.empty(len(d))
        deficit[:inner] = 1.0 - _row_sums(u[:inner] * z[:inner])
        # 1 - u^T z at a leaf without cancellation: sum_x p_x ridge / (n p_x + ridge)
        deficit[inner:] = _row_sums(p * ridge[inner:] / scale[inner:])
        gain = 1.0 / np.maximum(deficit, 1e-300)
        factors[level] = (scale, z, gain)
        d_below = ridge * d / scale
        u_below = (ridge[:, 0] * np.sqrt(gain))[:, None] * z
    return factors


def _apply_inverse(factor, values):
    scale, z, gain = factor
    return values / scale + (gain * _row_sums(z * values))[:, None] * z


def _newton_step(forest, factors, gradient):
    """``-P^{-1} gradient`` for the approximate Hessian ``P`` (an up and a down pass)."""
    linear = [None] * forest.depth  # each node's linear term in its predictor's change
    linear[-1] = gradient[-1]
    for level in range(forest.depth - 2, -1, -1):
        below = forest.ridge[level + 1] * _apply_inverse(factors[level + 1], linear[level + 1])
        passed = forest.children[level + 1] @ (below - gradient[level + 1])
        linear[level] = gradient[level].copy()
        linear[level][: forest.inner[level]] += passed
    change = _apply_inverse(factors[0], -linear[0])
    step = [change]
    for level in range(1, forest.depth):
        above = np.take(change, forest.parent[level], axis=0)
        change = _apply_inverse(factors[level], forest.ridge[level] * above - linear[level])
        step.append(change - above)
    return step


def fit_coefficients(forest, beta=None):
    """The coefficients minimising each problem's penalised negative log-likelihood.

    Parameters
    ----------
    forest : Forest
    beta : list of ndarray, optional
        Starting coefficients (default 0), e.g. the solution for a nearby ridge.

    Returns
    -------
    list of ndarray
        The coefficients per level.

    Examples
    --------
    >>> forest = Forest([FamilyTree(np.array([[3.0, 1.0]]))], ridges=[1e-9])
    >>> np.exp(forest.leaf_log_probabilities(fit_coefficients(forest))[-1]).round(6)
    array([[0.75, 0.25]])
    """
    beta = forest.zeros() if beta is None else beta
    log_p = forest.leaf_log_probabilities(beta)
    value = forest.objective(beta, log_p)
    for _ in range(MAX_STEPS):
        p = [np.exp(lp) for lp in log_p]
        residual = [
            n[:, None] * q - c for n, q, c in zip(forest.totals, p, forest.counts, strict=True)
        ]
        sums = forest.gather_up(residual)
        gradient = [s + ridge * b for s, ridge, b in zip(sums, forest.ridge, beta, strict=True)]
        step = _newton_step(forest, _merge_factors(forest, p), gradient)
        decrease = -sum(float((g * s).sum()) for g, s in zip(gradient, step, strict=True))
        size = max(float(np.abs(s).max(initial=0.0)) for s in step)
        if size <= STEP_TOLERANCE or decrease <= 0:
            break
        t = 1.0
        while t >= 1e-8:
            trial = [b + t * s for b, s in zip(beta, step, strict=True)]
            trial_log_p = forest.leaf_log_probabilities(trial)
            trial_value = forest.objective(trial, trial_log_p)
            if trial_value <= value - 1e-4 * t * decrease:
                break
            t /= 2
        else:  # no decrease along the step: at the optimum to rounding
            break
        beta, log_p, value = trial, trial_log_p, trial_value
        if size * t <= STEP_TOLERANCE:
            break
    return beta
