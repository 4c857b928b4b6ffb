"""Hierarchical linear smoothing (HLS) of conditional probability tables.

The method of Cooper, Webb and Schmidt (2025, "Efficient parameter estimation
for Bayesian network classifiers using hierarchical linear smoothing", arXiv
2505.23320). The table ``P(x | c, x_1, ..., x_p)`` of one family is a tree over
its conditioning variables in order: the root (the child's marginal), the
class, then the parents in the model's order. Every tree node has a
coefficient per child state, a row's linear predictor is the sum of the
coefficients on its path, and the row is the softmax of its predictor. The
coefficients are fitted by ridge-penalised multinomial logistic regression on
the family's counts::

    minimise  - sum N(c, x_1..x_p, x) log P(x | c, x_1..x_p)  +  ridge / 2 * sum ||beta||^2

A node's coefficients are how far its distribution strays from its parent's
(in log-odds) and the ridge pulls them to 0: a configuration with few rows
keeps its parent's distribution, one with many moves to its own, so a sparse
table backs off to the tables of fewer parents, one parent at a time, down to
the child's marginal. The fit and its solver are in
:mod:`bnclassify.parameters.hierarchy`.

**Missing cells.** A training row whose child is observed but one of whose
parents is missing counts at the node of its observed prefix, as
:class:`~.hdp.HDP` counts it: the class node if the first parent is missing,
the node ``(c, x_1, ..., x_l)`` if ``x_{l+1}`` is (the estimators pass each
family's shorter families, ``prefixes=``; ``hierarchy.own_rows`` turns
them into the rows of each node). Such a row is one more row of the
regression, whose linear predictor is the sum along its path down to that
node. Without it the upper levels of a family whose parents are often missing
learn from its few complete rows only.

**The ridge strength.** ``ridge="cv"`` (the default) chooses one strength for
all the tables fitted together (an estimator fits a model's families together)
from :data:`RIDGES` by ``n_folds``-fold cross-validation **on the counts**: the
rows of one cell are interchangeable, so dealing each cell's rows to the folds in
turn (:func:`deal_to_folds`) is a K-fold partition of the family's rows,
stratified by cell, and no row is read; every table and fold is one problem of a
batched solve, warm-started from one candidate to the next. The candidate with
the highest held-out log-likelihood summed over the tables wins (ties go to the
stronger ridge). A number fixes it: ``ridge=1`` is the authors' default
(scikit-learn's ``LogisticRegression(C=1)`` on three or more states; on two their
binomial fit is ``ridge=2``).

**Measured choices** (``docs/user_guide/smoothing_hls.md``): on the UCI
development sets with KDB(k=2), the root and one pooled strength per model gave
the lowest mean log loss; a strength per table (the authors' ``ridge-cv``) chose
too weak a ridge on tables with few rows, and the authors' code, which has no
root node (``root=False``: with no data a row is uniform rather than the
marginal), was worse on most sets. On the 22 UCI sets (KDB(k=2), numbers
binned, 5x2 CV; ``docs/benchmarks.md``) the mean log loss is Laplace 1.130, HDP
0.763, HLS 0.648 (HLS beats HDP on 19 sets), and one KDB(k=2) fit with HLS costs
0.064 to 0.082 of one with HDP in CPU time over the 22 sets (three runs; the
smoothing alone, the fit minus the additive one, 0.03 to 0.04). The solver sees
each chain of one-child nodes as one node (exact,
:mod:`~bnclassify.parameters.hierarchy`), a large table is solved alone, and a
cross-validation fold only on the nodes it has training rows under
(:meth:`~.hierarchy.FamilyTree.pruned`, exact); the leaves of one parent with
the same counts are solved as one, in the folds and in the final fit
(:meth:`~.hierarchy.FamilyTree.merged`, exact).

Examples
--------
>>> import numpy as np
>>> counts = np.array([[[9.0, 1.0], [0.0, 1.0]], [[1.0, 4.0], [2.0, 8.0]]])
>>> np.exp(HLS(ridge=1.0).log_conditional(counts)).round(3)
array([[[0.835, 0.165],
        [0.39 , 0.61 ]],
<BLANKLINE>
       [[0.231, 0.769],
        [0.219, 0.781]]])
"""

from __future__ import annotations

import numbers

import numpy as np

from ..validation import Interval, Options, Satisfies, validate_parameters
from .hierarchy import FamilyTree, Forest, fit_forest, own_rows
from .smoothing import Smoothing

#: The ridge strengths ``ridge="cv"`` chooses among (powers of 2 from 1/64 to 64).
RIDGES = tuple(2.0**k for k in range(-6, 7))
#: Where :meth:`HLS.select_ridge`'s walk starts (the candidate nearest it): the authors' fixed
#: strength, and the middle of :data:`RIDGES`.
START_RIDGE = 1.0
#: The solver's tolerance in the cross-validation (a coefficient's last change; the final fit
#: keeps ``hierarchy.STEP_TOLERANCE``). The cross-validation only ranks the candidates, and
#: Newton's last step of 1e-3 leaves an error of its square: the same choices as 1e-6 on all 220
#: folds of the 5x2 CV on the 22 UCI sets (KDB(k=2)) at 0.72 of the time (1e-2 changed one).
CV_TOLERANCE = 1e-3
#: The most ``(node, state)`` cells one batched solve holds. Batching small tables saves the
#: Python work of a solve per table, but a batch steps until its slowest problem converges, with
#: one line search for all: a large table is solved alone (splice 0.57 of the time batched in
#: 1 << 21 cells, arrhythmia 0.85, the small sets within the timing noise).
MAX_BATCH_CELLS = 1 << 14


def deal_to_folds(counts, n_folds: int) -> np.ndarray:
    """Split counts into ``n_folds`` folds as if dealing each cell's rows in turn.

    The rows of the cells are laid out in C order, each cell's rows together,
    and row ``t`` goes to fold ``t mod n_folds``: a K-fold partition of the rows
    in which each fold gets ``floor`` or ``ceil`` of ``N / n_folds`` rows of every
    cell. Fractional counts (weighted rows) are dealt as lengths, the same rule
    on a continuous line.

    Parameters
    ----------
    counts : ndarray
    n_folds : int

    Returns
    -------
    ndarray of shape ``(n_folds, *counts.shape)``
        The folds' counts; they sum to ``counts``.

    Examples
    --------
    >>> deal_to_folds(np.array([3.0, 1.0, 2.0]), 2)
    array([[2., 0., 1.],
           [1., 1., 1.]])
    """
    flat = np.asarray(counts, dtype=float).ravel()
    end = np.cumsum(flat)
    start = end - flat
    fold = np.arange(n_folds)[:, None]

    def dealt(position):  # how much of [0, position) fold k holds
        rounds = np.floor(position / n_folds)
        return rounds + np.clip(position - n_folds * rounds - fold, 0.0, 1.0)

    return (dealt(end) - dealt(start)).reshape(n_folds, *np.shape(counts))


def _valid_ridges(ridges) -> bool:
    try:
        values = np.asarray(ridges, dtype=float)
    except (TypeError, ValueError):
        return False
    return values.ndim == 1 and len(values) > 0 and bool(np.all(np.isfinite(values) & (values > 0)))


class HLS(Smoothing):
    """Hierarchical linear smoothing: a ridge-penalised log-linear model over the parent tree.

    Each row of a table is the softmax of the sum of the coefficients on its
    path through the tree of its conditioning variables (the root, the class,
    then the parents in the model's order), fitted by ridge-penalised
    multinomial logistic regression on the family's counts (Cooper, Webb and
    Schmidt 2025).

    Parameters
    ----------
    ridge : float > 0 or "cv", default="cv"
        The penalty ``ridge / 2 * ||beta||^2`` on every node's coefficients (the
        prior precision of each coefficient). ``"cv"``: one strength for all the
        tables fitted together, chosen among ``ridges`` by ``n_folds``-fold
        cross-validation on their counts; ``1.0`` is the authors' fixed default.
    n_folds : int >= 2, default=5
        Folds of the cross-validation (``ridge="cv"`` only).
    ridges : sequence of float > 0, default=RIDGES
        The candidates of the cross-validation.
    root : bool, default=True
        Whether the tree has a root node (the child's marginal). ``False`` is the
        authors' code: the class's nodes shrink to the uniform distribution.

    Examples
    --------
    >>> import numpy as np
    >>> counts = np.array([[[30.0, 10.0], [0.0, 1.0]], [[5.0, 15.0], [2.0, 6.0]]])
    >>> table = np.exp(HLS().log_conditional(counts))
    >>> table.sum(axis=-1)
    array([[1., 1.],
           [1., 1.]])
    >>> float(HLS().select_ridge([counts]))
    2.0
    """

    name = "hls"
    _parameter_constraints = {
        "ridge": [Interval(numbers.Real, 0, None, closed="neither"), Options({"cv"})],
        "n_folds": [Interval(numbers.Integral, 2, None, closed="left")],
        "ridges": [Satisfies(_valid_ridges, "a non-empty sequence of finite numbers > 0")],
        "root": ["boolean"],
    }

    def __init__(self, ridge="cv", n_folds: int = 5, ridges=RIDGES, root: bool = True):
        self.ridge = ridge
        self.n_folds = n_folds
        self.ridges = ridges
        self.root = root

    partial_rows = True

    def log_conditional(self, counts, rng=None, prefixes=None) -> np.ndarray:
        return self.log_conditionals([counts], rng, None if prefixes is None else [prefixes])[0]

    def log_conditionals(self, tables, rng=None, prefixes=None) -> list:
        """``log P(x | c, x_1, ..., x_p)`` of every family in ``tables``, fitted together.

        With ``ridge="cv"`` the tables share the strength that cross-validation
        on all of them chooses.

        Parameters
        ----------
        tables : list of ndarray
            Each family's counts, shape ``(n_classes, r_1, ..., r_p, r)``.
        rng : ignored (the method draws no random numbers)
        prefixes : list of list of ndarray, optional
            Per table, the counts of its shorter families ``N(c, x)``, ``N(c, x_1,
            x)``, ..., each over the rows where its own variables are observed: a
            row whose parent ``x_{l+1}`` is missing then counts at the node ``(c,
            x_1, ..., x_l)`` of the tree (``bnclassify.parameters.hierarchy.own_rows``; None: only
            the complete rows count).

        Returns
        -------
        list of ndarray
        """
        self._candidates()
        tables = [_checked_counts(counts) for counts in tables]
        own = _own_of(tables, prefixes)
        out, groups = _trivial_tables(tables, own)
        trees_of = self._trees(tables, own, groups)
        cv = _is_cv(self.ridge)
        ridge = self._select_ridge(tables, own, trees_of) if cv else float(self.ridge)
        for group in groups:
            trees = [trees_of[i] for i in group]
            for batch in _batches(
                range(len(group)), [tree.n_nodes for tree in trees], _states_of(trees)
            ):
                # twins solved as one here too (a tree's nodes all have data: nothing dropped)
                merged = [trees[j].merged() for j in batch]
                forest = Forest(
                    [tree for tree, _ in merged], np.full(len(batch), ridge),
                    [counts for _, counts in merged],
                )  # fmt: skip
                beta = fit_forest(forest)[0]
                for k, (j, (tree, _)) in enumerate(zip(batch, merged, strict=True)):
                    solved = tree.spread(forest.solver_coefficients(beta, k))
                    out[group[j]] = trees[j].log_table(solved)
        return out

    def cross_validate(self, tables, prefixes=None) -> np.ndarray:
        """Held-out log-likelihood of each table under each candidate ridge strength.

        Parameters
        ----------
        tables : list of ndarray
            Each family's counts.
        prefixes : list of list of ndarray, optional
            As :meth:`log_conditionals` takes them.

        Returns
        -------
        ndarray of shape (len(tables), len(ridges))
            ``sum over folds and cells of N_test log P_train``; 0 for a table that
            has nothing to fit (no data, or one child state).
        """
        ridges = self._candidates()
        scores = np.zeros((len(tables), len(ridges)))
        tables = [_checked_counts(counts) for counts in tables]
        for g, table_scores in self._sweep(tables, _own_of(tables, prefixes), ridges):
            scores[:, g] = table_scores
        return scores

    def select_ridge(self, tables, prefixes=None) -> float:
        """The ridge strength cross-validation picks for these tables together.

        A walk along the candidates (sorted from the strongest down) from the one
        nearest ``START_RIDGE`` (1): that candidate and the next stronger one are
        scored, and the walk goes on towards the better of the two (the stronger
        on a tie), each fit starting from the previous one's solution, until a
        candidate scores worse than the best so far; scores equal to 10
        significant digits are ties, won by the stronger ridge. The held-out
        log-likelihood rises and then falls along the candidates (on all 44
        folds of the UCI collection measured, ``docs/user_guide/smoothing_hls.md``),
        and there the walk finds the best candidate, scoring about a third of
        them.

        Parameters
        ----------
        tables : list of ndarray
        prefixes : list of list of ndarray, optional
            As :meth:`log_conditionals` takes them.

        Returns
        -------
        float
        """
        self._candidates()
        tables = [_checked_counts(counts) for counts in tables]
        return self._select_ridge(tables, _own_of(tables, prefixes))

    def _trees(self, tables, own, groups) -> dict:
        """Each table's :class:`FamilyTree` (the tables in ``groups``), built once for the
        cross-validation and the fit."""
        return {i: FamilyTree(tables[i], self.root, own[i]) for group in groups for i in group}

    def _select_ridge(self, tables, own, trees_of=None) -> float:
        ridges = self._candidates()
        order = np.argsort(-ridges, kind="stable")  # strongest first
        if len(order) == 1:
            return float(ridges[order[0]])
        problems, n_tables = self._problems(tables, own, trees_of)

        def score(ridge, starts):
            scores, solutions = _held_out_scores(problems, n_tables, ridge, starts)
            return _rounded(float(scores.sum())), solutions

        start = int(np.argmin(np.abs(np.log(ridges[order]) - np.log(START_RIDGE))))
        start = max(start, 1)  # a stronger neighbour to compare with
        here, solved_here = score(ridges[order[start]], [None] * len(problems))
        beside, solved = score(ridges[order[start - 1]], solved_here)
        if beside >= here:  # on towards the stronger candidates
            best, best_score, step = start - 1, beside, -1
        else:  # on towards the weaker ones, from the start's solution
            best, best_score, step, solved = start, here, 1, solved_here
        i = best + step
        while 0 <= i < len(order):
            value, solved_i = score(ridges[order[i]], solved)
            if not (value > best_score or (step < 0 and value == best_score)):
                break
            best, best_score, solved = i, value, solved_i
            i += step
        return float(ridges[order[best]])

    def _problems(self, tables, own, trees_of=None):
        """The cross-validation's batched problems: ``(forest, table of each problem,
        held-out counts stacked like the nodes)``."""
        folds = int(self.n_folds)
        problems = []
        groups = _trivial_tables(tables, own)[1]
        trees_of = self._trees(tables, own, groups) if trees_of is None else trees_of
        for group in groups:
            trees = [trees_of[i] for i in group]
            per_node = folds * _states_of(trees)
            for batch in _batches(range(len(group)), [tree.n_nodes for tree in trees], per_node):
                held_out = [deal_to_folds(trees[j].node_counts, folds) for j in batch]
                pairs = [(b, k) for b in range(len(batch)) for k in range(folds)]
                train = [trees[batch[b]].node_counts - held_out[b][k] for b, k in pairs]
                # each fold solved on the nodes it has training rows under (the others keep
                # their parent's distribution), its held-out rows scored there
                pruned = [trees[batch[b]].pruned(t) for (b, _), t in zip(pairs, train, strict=True)]
                # a twins' stand-in takes their training counts (a dropped node has none)
                lifted = [
                    lift(t) if tree.twins else t
                    for t, (tree, lift) in zip(train, pruned, strict=True)
                ]
                forest = Forest([tree for tree, _ in pruned], np.ones(len(pairs)), lifted)
                test = forest.stack_nodes(
                    [lift(held_out[b][k]) for (b, k), (_, lift) in zip(pairs, pruned, strict=True)]
                )
                problems.append((forest, [group[batch[b]] for b, _ in pairs], test))
        return problems, len(tables)

    def _sweep(self, tables, own, ridges):
        """``(candidate, held-out score of each table)`` from the strongest candidate down."""
        problems, n_tables = self._problems(tables, own)
        solved = [None] * len(problems)
        for g in np.argsort(-ridges, kind="stable"):
            # each solution starts the next, weaker, ridge's solve
            scores, solved = _held_out_scores(problems, n_tables, ridges[g], solved)
            yield g, scores

    def _candidates(self) -> np.ndarray:
        validate_parameters(self)
        return np.asarray(self.ridges, dtype=float).ravel()


def _held_out_scores(problems, n_tables, ridge, starts):
    """Each table's held-out score under ``ridge``, and the solutions (one per problem), each
    solve starting from ``starts`` (one per problem; None: zeros)."""
    solutions, scores = [], np.zeros(n_tables)
    for (forest, rows, test), beta in zip(problems, starts, strict=True):
        forest.set_ridges(np.full(len(rows), ridge))
        solution, log_p = fit_forest(forest, beta, tolerance=CV_TOLERANCE)
        solutions.append(solution)
        np.add.at(scores, rows, forest.node_scores(log_p, test))
    return scores, solutions


def _rounded(score: float) -> float:
    return float(f"{score:.10g}")


def _is_cv(ridge) -> bool:
    return isinstance(ridge, str) and ridge == "cv"


def _checked_counts(counts) -> np.ndarray:
    counts = np.asarray(counts, dtype=float)
    if counts.ndim == 0 or counts.shape[-1] == 0:
        raise ValueError(f"HLS: counts need a last axis of child states, got shape {counts.shape}.")
    if not np.all(np.isfinite(counts)) or (counts < 0).any():
        raise ValueError("HLS: counts must be finite and >= 0.")
    return counts


def _own_of(tables, prefixes) -> list:
    """Per table, the rows counted at its inner nodes (None: none)."""
    if prefixes is None:
        return [None] * len(tables)
    return [
        own_rows(counts, [_checked_counts(p) for p in shorter], "HLS")
        for counts, shorter in zip(tables, prefixes, strict=True)
    ]


def _trivial_tables(tables, own):
    """The tables with nothing to fit answered, the others' indices grouped by child states.

    One child state gives log 1 = 0; no data at all gives uniform rows.
    """
    out, groups = [None] * len(tables), {}
    for i, counts in enumerate(tables):
        r = counts.shape[-1]
        if r == 1 or not (counts.any() or any(rows.any() for rows in (own[i] or {}).values())):
            out[i] = np.full(counts.shape, -np.log(r))
        else:
            groups.setdefault(r, []).append(i)
    return out, list(groups.values())


def _states_of(trees) -> int:
    return trees[0].n_states


def _batches(items, nodes, cells_per_node):
    """Consecutive groups of items whose ``nodes * cells_per_node`` add up to at most
    MAX_BATCH_CELLS (one item at least)."""
    group, total = [], 0
    for item, size in zip(items, nodes, strict=True):
        cells = size * cells_per_node
        if group and total + cells > MAX_BATCH_CELLS:
            yield group
            group, total = [], 0
        group.append(item)
        total += cells
    if group:
        yield group
