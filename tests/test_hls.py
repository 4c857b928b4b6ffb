"""Hierarchical linear smoothing (bnclassify.parameters.HLS) against references written from
the paper, scikit-learn's logistic regression, brute-force cross-validation and its invariants."""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd
import pytest
from _checks import parametrize_with_checks
from hypothesis import example, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.optimize import minimize
from scipy.special import log_softmax

from bnclassify import AODE, KDB, KDBHC, TAN, EnsembleTAN, NaiveBayes, _native
from bnclassify.exceptions import InvalidParameterError
from bnclassify.io import dump, load
from bnclassify.parameters import HLS, hierarchy
from bnclassify.parameters import hls as hls_module
from bnclassify.parameters.hierarchy import FamilyTree, Forest, SolverTree, fit_forest
from bnclassify.parameters.hls import RIDGES, deal_to_folds
from bnclassify.stats import training_statistics
from bnclassify.stats.tables import SmoothedTables


def design_matrix(cards, root=True) -> np.ndarray:
    """One row per table row (parent configuration), one indicator column per tree node:
    the root (a column of ones; the authors' code drops it), the class's node, then the
    node of (class, x_1), ..."""
    n_rows = int(np.prod(cards))
    columns = [np.ones((n_rows, 1))] if root else []
    for level in range(len(cards)):
        n_nodes = int(np.prod(cards[: level + 1]))
        block = np.zeros((n_rows, n_nodes))
        block[np.arange(n_rows), np.arange(n_rows) // (n_rows // n_nodes)] = 1.0
        columns.append(block)
    return np.hstack(columns)


def inner_design_rows(cards, level, root=True) -> np.ndarray:
    """The design rows of the nodes of one level (``cards[:level + 1]``): ones on each node's
    column and its ancestors' (a row counted there sums the coefficients of its path)."""
    full = design_matrix(cards, root)
    below = int(np.prod(cards[level + 1 :]))
    n_nodes = int(np.prod(cards[: level + 1]))
    X = full[np.arange(n_nodes) * below].copy()
    # drop the columns of the levels under this one
    keep = (1 if root else 0) + sum(int(np.prod(cards[: k + 1])) for k in range(level + 1))
    X[:, keep:] = 0.0
    return X


def reference_log_table(counts, ridge, root=True, own=None) -> np.ndarray:
    """The penalised multinomial regression on the counts, fitted by a generic optimiser;
    ``own[l]``: rows counted at the nodes ``(c, x_1, ..., x_{l-1})`` (a missing parent)."""
    cards, r = counts.shape[:-1] or (1,), counts.shape[-1]
    X = design_matrix(cards, root)
    N = counts.reshape(-1, r)
    for level, rows in (own or {}).items():
        X = np.vstack([X, inner_design_rows(cards, level - 1, root)])
        N = np.vstack([N, rows])
    n = N.sum(axis=1)
    p_nodes = X.shape[1]

    def objective(flat):
        B = flat.reshape(p_nodes, r)
        log_p = log_softmax(X @ B, axis=1)
        value = -(N * log_p).sum() + ridge / 2 * (B * B).sum()
        gradient = X.T @ (n[:, None] * np.exp(log_p) - N) + ridge * B
        return value, gradient.ravel()

    def hessian(flat):
        p = np.exp(log_softmax(X @ flat.reshape(p_nodes, r), axis=1))
        W = n[:, None, None] * (np.einsum("lx,xy->lxy", p, np.eye(r)) - p[:, :, None] * p[:, None])
        H = np.einsum("lj,lk,lxy->jxky", X, X, W).reshape(p_nodes * r, p_nodes * r)
        return H + ridge * np.eye(p_nodes * r)

    with np.errstate(divide="ignore", invalid="ignore"):
        # scipy's trust-region step divides by a vanishing norm near a flat start on some
        # tables (one class, a zero count, ridge 0.05); the Newton polish below finishes
        result = minimize(
            objective,
            np.zeros(p_nodes * r),
            jac=True,
            hess=hessian,
            method="trust-exact",
            options={"gtol": 1e-11},
        )
    flat = result.x
    for _ in range(3):  # Newton's polish: trust-exact can stop short ("bad approximation")
        flat = flat - np.linalg.solve(hessian(flat), objective(flat)[1])
    leaves = int(np.prod(cards))
    return log_softmax(X[:leaves] @ flat.reshape(p_nodes, r), axis=1).reshape(counts.shape)


@st.composite
def family_counts(draw, max_states=4):
    """Counts of a family with up to two parents: (C, r_1, ..., r_p, r), small integers."""
    n_classes = draw(st.integers(1, 3))
    parents = draw(st.lists(st.integers(1, 3), max_size=2))
    r = draw(st.integers(2, max_states))
    shape = (n_classes, *parents, r)
    counts = draw(arrays(np.int64, shape, elements=st.integers(0, 6)))
    return counts.astype(float)


RIDGE = st.sampled_from([0.05, 1.0, 8.0])


@settings(max_examples=40, deadline=None)
@given(counts=family_counts(), ridge=RIDGE, root=st.booleans())
@example(counts=np.array([[5.0, 0.0, 2.0, 4.0]]), ridge=0.05, root=False)  # scipy's flat start
def test_table_is_the_penalised_regression_fitted_by_a_generic_optimiser(counts, ridge, root):
    got = HLS(ridge=ridge, root=root).log_conditional(counts)
    np.testing.assert_allclose(got, reference_log_table(counts, ridge, root), atol=1e-7)


@settings(max_examples=30, deadline=None)
@given(
    counts=family_counts().filter(lambda c: c.ndim >= 3),
    data=st.data(),
    ridge=RIDGE,
    root=st.booleans(),
)
def test_rows_with_a_missing_parent_count_at_their_observed_prefix(counts, data, ridge, root):
    # a row whose parent x_l is missing holds data at the node (c, x_1, ..., x_{l-1}): the
    # regression gains a design row of that node's path (issue 34; HDP does the same)
    cards, r = counts.shape[:-1], counts.shape[-1]
    own = {
        level: data.draw(
            arrays(np.int64, (int(np.prod(cards[:level])), r), elements=st.integers(0, 4))
        ).astype(float)
        for level in range(1, len(cards))
    }
    prefixes, longer = [None] * (len(cards) - 1), counts
    for level in range(len(cards) - 1, 0, -1):
        longer = longer.sum(axis=-2) + own[level].reshape(*cards[:level], r)
        prefixes[level - 1] = longer
    got = HLS(ridge=ridge, root=root).log_conditional(counts, prefixes=prefixes)
    want = reference_log_table(counts, ridge, root, own)
    np.testing.assert_allclose(got, want, atol=1e-7)


def test_a_fit_counts_rows_with_a_missing_parent_at_their_observed_prefix():
    # the estimators' tables come through SmoothedTables, which hands HLS each family's
    # shorter families; without them b's table would learn from the complete rows only
    rng = np.random.default_rng(0)
    n = 300
    a = rng.integers(0, 3, n)
    b = (a + rng.integers(0, 2, n)) % 3
    y = np.where(rng.random(n) < 0.8, a % 2, 1 - a % 2)
    X = pd.DataFrame({"a": a.astype(str), "b": b.astype(str)})
    X.loc[rng.random(n) < 0.4, "a"] = np.nan  # b's parent a is often missing
    _, _, stats = training_statistics(X, y)
    families = [(1, (0,)), (0, ())]
    smoothed = SmoothedTables(stats, HLS(), families)
    counts = [stats.family(child, parents) for child, parents in families]
    prefixes = [[stats.family(1, ())], []]
    expected = HLS().log_conditionals(counts, prefixes=prefixes)
    complete_rows_only = HLS().log_conditionals(counts)
    for (child, parents), table in zip(families, expected, strict=True):
        np.testing.assert_allclose(smoothed.log_family(child, parents, 1.0), table)
    assert not np.allclose(expected[0], complete_rows_only[0], atol=1e-3)


def test_table_equals_scikit_learn_logistic_regression_on_the_counts():
    # The authors fit sklearn's LogisticRegression(C, no intercept) on the design matrix's
    # rows repeated by their counts; weighting each distinct (row, state) by its count is
    # the same fit. Its penalty is ||W||^2 / 2 / C: ridge = 1 / C with 3+ states; with 2 it
    # fits one coefficient vector w = beta_1 - beta_0, ridge = 2 / C.
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(0)
    for r, to_ridge in ((3, 1.0), (4, 1.0), (2, 2.0)):
        counts = rng.integers(0, 7, size=(2, 3, 2, r)).astype(float)
        counts[0, 1] = 0  # a parent configuration without data
        X = design_matrix(counts.shape[:-1], root=False)
        rows, states = np.nonzero(counts.reshape(-1, r))
        weights = counts.reshape(-1, r)[rows, states]
        model = LogisticRegression(C=0.5, fit_intercept=False, tol=1e-12, max_iter=10_000)
        model.fit(X[rows], states, sample_weight=weights)
        want = model.predict_log_proba(X).reshape(counts.shape)
        got = HLS(ridge=to_ridge / 0.5, root=False).log_conditional(counts)
        np.testing.assert_allclose(got, want, atol=1e-6)


@settings(max_examples=40, deadline=None)
@given(counts=family_counts(), ridge=RIDGE)
def test_rows_are_distributions(counts, ridge):
    table = np.exp(HLS(ridge=ridge).log_conditional(counts))
    assert np.isfinite(table).all() and (table > 0).all()
    np.testing.assert_allclose(table.sum(axis=-1), 1.0, rtol=1e-12)


@settings(max_examples=30, deadline=None)
@given(counts=family_counts(), ridge=RIDGE, data=st.data())
def test_relabelling_child_or_parent_states_relabels_the_table(counts, ridge, data):
    axis = data.draw(st.integers(0, counts.ndim - 1))
    order = data.draw(st.permutations(range(counts.shape[axis])))
    smoothing = HLS(ridge=ridge)
    relabelled = smoothing.log_conditional(np.take(counts, order, axis=axis))
    np.testing.assert_allclose(
        relabelled, np.take(smoothing.log_conditional(counts), order, axis=axis), atol=1e-9
    )


@settings(max_examples=30, deadline=None)
@given(counts=family_counts())
def test_an_infinite_ridge_gives_uniform_rows(counts):
    table = np.exp(HLS(ridge=1e12).log_conditional(counts))
    np.testing.assert_allclose(table, 1.0 / counts.shape[-1], atol=1e-9)


@settings(max_examples=30, deadline=None)
@given(counts=family_counts())
def test_a_vanishing_ridge_gives_the_maximum_likelihood_rows_where_counts_are_positive(counts):
    rows = counts.reshape(-1, counts.shape[-1])
    positive = (rows > 0).all(axis=1)
    table = np.exp(HLS(ridge=1e-7).log_conditional(counts)).reshape(rows.shape)
    ml = rows[positive] / rows[positive].sum(axis=1, keepdims=True)
    np.testing.assert_allclose(table[positive], ml, atol=1e-5)


def test_rows_without_data_take_their_deepest_ancestor_with_data():
    counts = np.zeros((2, 2, 2, 3))
    counts[0, 0, 0] = [5, 1, 0]
    counts[0, 0, 1] = [0, 2, 2]
    counts[1, 1, 1] = [1, 1, 1]
    table = HLS(ridge=1.0).log_conditional(counts)
    # (class 0, x1 = 1) has no data: both its rows are the (class 0) node's distribution,
    # the same as a tree cut at class 0 would give; class 1's empty x1 = 0 likewise
    np.testing.assert_array_equal(table[0, 1, 0], table[0, 1, 1])
    np.testing.assert_array_equal(table[1, 0, 0], table[1, 0, 1])
    assert not np.allclose(table[0, 1, 0], table[0, 0, 0])
    # a class without any data takes the root's distribution (the child's smoothed
    # marginal), or the uniform one without a root
    counts[1] = 0
    rows = np.exp(HLS(ridge=1.0).log_conditional(counts)[1]).reshape(-1, 3)
    np.testing.assert_allclose(rows, rows[[0]].repeat(4, axis=0))
    assert rows[0, 0] > rows[0, 2]  # the marginal's 5 rows of state 0 against 2 of state 2
    np.testing.assert_allclose(HLS(ridge=1.0, root=False).log_conditional(counts)[1], -np.log(3))


def test_families_fitted_together_equal_each_fitted_alone():
    rng = np.random.default_rng(1)
    tables = [
        rng.integers(0, 5, size=shape).astype(float)
        for shape in [(2, 3), (2, 3, 3), (3, 2, 2, 3), (2, 4), (2, 2, 4), (2, 1)]
    ]
    tables.append(np.zeros((2, 2, 3)))  # no data: uniform
    pooled = HLS().select_ridge(tables)
    for smoothing, alone in ((HLS(ridge=2.0), HLS(ridge=2.0)), (HLS(), HLS(ridge=pooled))):
        together = smoothing.log_conditionals(tables)
        for counts, table in zip(tables, together, strict=True):
            np.testing.assert_allclose(table, alone.log_conditional(counts), atol=1e-9)
    assert np.all(HLS().log_conditional(np.ones((2, 1))) == 0.0)  # one state: log 1


@st.composite
def sparse_family(draw):
    """Counts of a family with up to three parents, mostly 0 (a configuration seen in one or
    two rows: chains of one-child nodes), with rows of a missing parent for some."""
    n_classes = draw(st.integers(1, 3))
    cards = (n_classes, *draw(st.lists(st.integers(1, 4), min_size=1, max_size=3)))
    r = draw(st.integers(2, 4))
    counts = draw(arrays(np.int64, (*cards, r), elements=st.sampled_from([0] * 12 + [1, 2])))
    if draw(st.booleans()):
        return counts.astype(float), None
    prefixes, longer = [None] * (len(cards) - 1), counts
    for level in range(len(cards) - 1, 0, -1):
        extra = draw(arrays(np.int64, (*cards[:level], r), elements=st.sampled_from([0] * 8 + [1])))
        longer = longer.sum(axis=-2) + extra
        prefixes[level - 1] = longer.astype(float)
    return counts.astype(float), prefixes


@settings(max_examples=60, deadline=None)
@given(families=st.lists(sparse_family(), min_size=1, max_size=3), ridge=RIDGE)
def test_folding_chains_of_one_child_nodes_changes_no_table(families, ridge):
    # the solver folds each chain into one node with ridge / L (FamilyTree.levels); the tables
    # and the cross-validation's scores are those of the unfolded tree
    tables = [counts for counts, _ in families]
    prefixes = [_complete_prefixes(t) if p is None else p for t, p in families]
    fixed, chosen = HLS(ridge=ridge), HLS(n_folds=3, ridges=(0.5, 4.0))
    results = []
    for fold in (True, False):
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(hls_module, "FamilyTree", functools.partial(FamilyTree, fold=fold))
            patch.setattr(hls_module, "CV_TOLERANCE", 1e-9)  # near exact: unfolded chains are slow
            results.append(
                (fixed.log_conditionals(tables, prefixes=prefixes),
                 chosen.cross_validate(tables, prefixes=prefixes))
            )  # fmt: skip
    (folded, scores_folded), (unfolded, scores_unfolded) = results
    for a, b in zip(folded, unfolded, strict=True):
        np.testing.assert_allclose(a, b, atol=1e-8)
    np.testing.assert_allclose(scores_folded, scores_unfolded, rtol=1e-6, atol=1e-6)


@settings(max_examples=30, deadline=None)
@given(families=st.lists(sparse_family(), min_size=1, max_size=3))
def test_a_fold_solved_on_its_nodes_with_data_scores_as_on_the_whole_tree(families):
    # FamilyTree.pruned drops a fold's nodes without training rows under them (coefficient 0:
    # their parent's distribution) and scores their held-out rows at the nearest kept ancestor
    tables = [counts for counts, _ in families]
    prefixes = [_complete_prefixes(t) if p is None else p for t, p in families]
    smoothing = HLS(n_folds=3, ridges=(0.5, 4.0))

    def whole(tree, node_counts):
        values = lambda v: np.array(v, dtype=float).reshape(tree.n_nodes, tree.n_states)  # noqa: E731
        return SolverTree(tree.levels, tree.links, tree.chains, tree.n_states), values

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(hierarchy, "TWIN_MIN_LEAVES", 2)  # twins merged on these small tables too
        pruned = smoothing.cross_validate(tables, prefixes=prefixes)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(FamilyTree, "pruned", whole)
        unpruned = smoothing.cross_validate(tables, prefixes=prefixes)
    np.testing.assert_allclose(pruned, unpruned, rtol=1e-9, atol=1e-9)


def test_leaves_of_one_parent_with_the_same_rows_are_solved_as_one(monkeypatch):
    # an identifier-like parent (splice's Instance_name): one row per configuration, so each class
    # and child state has many leaves whose counts are one row; they share one optimum
    rng = np.random.default_rng(0)
    counts = np.zeros((2, 3, 40, 3))
    for c, x1, key in zip(rng.integers(0, 2, 40), rng.integers(0, 3, 40), range(40), strict=True):
        counts[c, x1, key, rng.integers(0, 3)] = 1.0
    monkeypatch.setattr(hierarchy, "TWIN_MIN_LEAVES", 2)  # a small table: look for twins
    tree = FamilyTree(counts)
    train = tree.node_counts.copy()
    train[-3:] = 0.0  # a few rows held out
    solver_tree, lift = tree.pruned(train)
    leaves = sum(len(nodes) for nodes in solver_tree.levels)
    assert leaves < sum(len(nodes) for nodes in tree.levels) - 20  # twins merged
    held_out = tree.node_counts - train
    scores = []
    for t, values in ((solver_tree, lift), (tree, lambda v: v)):
        forest = Forest([t], [0.5], [values(train)])
        log_p = fit_forest(forest)[1]
        scores.append(forest.node_scores(log_p, forest.stack_nodes([values(held_out)])))
    np.testing.assert_allclose(scores[0], scores[1], rtol=1e-9)


@settings(max_examples=40, deadline=None)
@given(families=st.lists(sparse_family(), min_size=1, max_size=3), ridge=RIDGE)
def test_the_final_fit_solves_twins_as_one_with_the_same_tables(families, ridge):
    # FamilyTree.merged: a fit to all the rows solves leaves of one parent with the same counts
    # and chain length as one node, each twin taking its stand-in's coefficients
    tables = [counts for counts, _ in families]
    prefixes = [_complete_prefixes(t) if p is None else p for t, p in families]
    fitted = []
    for floor in (2, 10**9):  # twins looked for on every level, on none
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(hierarchy, "TWIN_MIN_LEAVES", floor)
            fitted.append(HLS(ridge=ridge).log_conditionals(tables, prefixes=prefixes))
    for merged, whole in zip(*fitted, strict=True):
        np.testing.assert_allclose(merged, whole, atol=1e-9)


def test_twins_of_an_identifier_like_parent_share_the_fit(monkeypatch):
    # one row per configuration of the last parent: many one-row leaves per parent, few kinds
    rng = np.random.default_rng(1)
    counts = np.zeros((2, 3, 60, 3))
    for c, x1, key in zip(rng.integers(0, 2, 60), rng.integers(0, 3, 60), range(60), strict=True):
        counts[c, x1, key, rng.integers(0, 3)] = 1.0
    monkeypatch.setattr(hierarchy, "TWIN_MIN_LEAVES", 2)
    tree = FamilyTree(counts)
    solver_tree, node_counts = tree.merged()
    assert solver_tree.twins
    assert sum(map(len, solver_tree.levels)) < sum(map(len, tree.levels)) - 30
    forest = Forest([solver_tree], [0.5], [node_counts])
    solved = forest.solver_coefficients(fit_forest(forest)[0], 0)
    merged = tree.log_table(solver_tree.spread(solved))
    whole = Forest([tree], [0.5])
    # the whole tree's fit is checked against a generic optimiser (test_table_is_the_penalised_...)
    np.testing.assert_allclose(merged, whole.log_tables(fit_forest(whole)[0])[0], atol=1e-10)


def _complete_prefixes(counts):
    """The shorter families when no parent is missing: the counts summed over the last parents."""
    prefixes = []
    for _ in range(counts.ndim - 2):
        counts = counts.sum(axis=-2)
        prefixes.insert(0, counts)
    return prefixes


def test_a_chain_is_one_solver_node_with_the_ridge_over_its_length():
    # class 0 -> x_1 = 1 -> x_2 = 0: one row, a chain of three nodes under the root
    counts = np.zeros((2, 2, 2, 3))
    counts[0, 1, 0] = [1.0, 0.0, 0.0]
    counts[1] = 2.0
    tree = FamilyTree(counts)
    assert tree.n_nodes == 1 + 2 + 3 + 5
    assert sum(len(nodes) for nodes in tree.levels) == tree.n_nodes - 2
    assert sorted(np.concatenate(tree.chains).tolist()) == [1] * 8 + [3]
    unfolded = FamilyTree(counts, fold=False)
    assert [len(n) for n in unfolded.levels] == [len(k) for k in unfolded.kept]
    fits = []
    for t in (tree, unfolded):
        forest = Forest([t], [1.0])
        fits.append(forest.log_tables(fit_forest(forest)[0])[0])
    np.testing.assert_allclose(fits[0], fits[1], atol=1e-9)
    np.testing.assert_allclose(fits[0], reference_log_table(counts, 1.0), atol=1e-7)


@pytest.mark.skipif(_native.runtime.kernels is None, reason="the compiled kernels are not built")
@settings(max_examples=30, deadline=None)
@given(tables=st.lists(family_counts(), min_size=1, max_size=4), ridge=RIDGE)
def test_the_compiled_solver_and_its_numpy_twin_agree(tables, ridge):
    fixed, chosen = HLS(ridge=ridge), HLS(n_folds=3, ridges=(0.5, 4.0))
    results = []
    for compiled in (True, False):
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(_native.runtime, "COMPILED", compiled)
            fitted = fixed.log_conditionals(tables)
            results.append((fitted, chosen.cross_validate(tables), chosen.select_ridge(tables)))
    (a, scores_a, ridge_a), (b, scores_b, ridge_b) = results
    for x, y in zip(a, b, strict=True):
        np.testing.assert_allclose(x, y, atol=1e-9)
    np.testing.assert_allclose(scores_a, scores_b, rtol=1e-6, atol=1e-6)
    assert ridge_a == ridge_b


@pytest.mark.skipif(_native.runtime.kernels is None, reason="the compiled kernels are not built")
def test_the_kernel_refuses_inconsistent_trees():
    one = np.zeros(1, dtype=np.int64)
    with pytest.raises(ValueError, match="hls_fit: inconsistent arguments"):
        # the only node claims a child past the last node
        _native.runtime.kernels.hls_fit(
            one - 1, one + 1, one + 2, np.ones(1), np.ones(2), np.ones(1), np.zeros(2),
            np.zeros(2), 2, 1e-10, 10, 1e-10,
        )  # fmt: skip


def test_dealing_to_folds_is_a_stratified_partition_of_the_rows():
    counts = np.array([[7.0, 0.0, 3.0], [1.0, 12.0, 2.0]])
    folds = deal_to_folds(counts, 5)
    np.testing.assert_array_equal(folds.sum(axis=0), counts)
    assert np.all(folds >= np.floor(counts / 5)) and np.all(folds <= np.ceil(counts / 5))
    np.testing.assert_array_equal(folds.sum(axis=(1, 2)), [5, 5, 5, 5, 5])  # 25 rows
    weighted = deal_to_folds(np.array([0.5, 2.25, 1.0]), 2)
    np.testing.assert_allclose(weighted.sum(axis=0), [0.5, 2.25, 1.0])
    np.testing.assert_allclose(weighted, [[0.5, 1.25, 0.25], [0.0, 1.0, 0.75]])


@settings(max_examples=15, deadline=None)
@given(counts=family_counts(max_states=3))
@example(  # held-out scores fall and rise again along the ridges: the walk stops at 16
    counts=np.array([[[0.0, 0, 4], [4, 4, 4], [4, 4, 4]], [[4, 4, 4], [4, 4, 4], [4, 4, 4]]])
)
def test_cross_validation_equals_refitting_every_fold_by_brute_force(counts):
    smoothing = HLS(n_folds=3, ridges=(0.25, 2.0, 16.0))
    with pytest.MonkeyPatch.context() as patch:  # the dealing and scoring, the solves near exact
        patch.setattr(hls_module, "CV_TOLERANCE", 1e-6)
        got = smoothing.cross_validate([counts])[0]
        chosen = smoothing.select_ridge([counts])
    if counts.shape[-1] == 1 or not counts.any():
        return
    held_out = deal_to_folds(counts, 3)
    want = [
        sum(
            float((test * HLS(ridge=ridge).log_conditional(counts - test)).sum())
            for test in held_out
        )
        for ridge in (0.25, 2.0, 16.0)
    ]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)  # 1e-6 per coefficient
    # select_ridge walks from the candidate nearest 1 towards the better neighbour and stops
    # when a candidate scores worse (its docstring): its pick is a local maximum of the
    # held-out scores along the candidates, the best one where they rise and then fall
    i = (0.25, 2.0, 16.0).index(chosen)
    tolerance = 1e-9 * max(1.0, abs(want[i]))
    assert all(want[j] <= want[i] + tolerance for j in (i - 1, i + 1) if 0 <= j < 3)
    if want[1] >= min(want[0], want[2]):  # no valley in the middle: the walk finds the best
        assert chosen == (0.25, 2.0, 16.0)[len(want) - 1 - int(np.argmax(want[::-1]))]


def test_cross_validation_picks_a_weak_ridge_for_plentiful_data_and_a_strong_one_for_noise():
    rng = np.random.default_rng(2)
    # 4 classes x 5 parent states, rows far apart and 400 rows each: little to smooth
    p = rng.dirichlet(np.full(4, 0.3), size=(4, 5))
    distinct = np.stack([[rng.multinomial(400, row) for row in cls] for cls in p]).astype(float)
    # every row drawn from one distribution: the parents carry no information
    same = rng.multinomial(3, [0.25] * 4, size=(4, 5)).astype(float)
    low, high = HLS().select_ridge([distinct]), HLS().select_ridge([same])
    assert low <= 0.25 and high >= 4.0 and {low, high} <= set(RIDGES)
    # tables fitted together share the strength their summed scores choose
    scores = HLS().cross_validate([distinct, same]).sum(axis=0)
    assert HLS().select_ridge([distinct, same]) == RIDGES[int(np.argmax(scores))]


def test_the_ridge_walk_scores_few_candidates_and_finds_the_best(monkeypatch):
    # the walk starts next to ridge 1 and stops at the first worse candidate: on a
    # rise-then-fall curve it picks the grid's best, scoring far fewer than all 13
    from bnclassify.parameters import hls

    rng = np.random.default_rng(3)
    p = rng.dirichlet(np.full(3, 0.5), size=(3, 4))
    tables = [
        np.stack([[rng.multinomial(n, row) for row in cls] for cls in p]).astype(float)
        for n in (2, 40)
    ]
    scores = HLS().cross_validate(tables).sum(axis=0)
    best = len(RIDGES) - 1 - int(np.argmax(scores[::-1]))  # ties to the stronger
    scored = []
    real = hls._held_out_scores

    def counting(problems, n_tables, ridge, starts):
        scored.append(ridge)
        return real(problems, n_tables, ridge, starts)

    monkeypatch.setattr(hls, "_held_out_scores", counting)
    assert HLS().select_ridge(tables) == RIDGES[best]
    assert len(scored) == len(set(scored)) <= abs(int(np.log2(RIDGES[best]))) + 3 < len(RIDGES)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"ridge": 0.0}, "ridge"),
        ({"ridge": "auto"}, "ridge"),
        ({"n_folds": 1}, "n_folds"),
        ({"ridges": (1.0, -2.0)}, "ridges"),
        ({"ridges": ()}, "ridges"),
    ],
)
def test_bad_options_are_refused_by_name(kwargs, match):
    with pytest.raises((InvalidParameterError, ValueError), match=match):
        HLS(**kwargs).log_conditional(np.ones((2, 2)))


@pytest.mark.parametrize("counts", [np.array([[1.0, -1.0]]), np.array([[1.0, np.nan]])])
def test_bad_counts_are_refused(counts):
    with pytest.raises(ValueError, match="counts must be finite and >= 0"):
        HLS().log_conditional(counts)


# --- smoothing="hls" on the estimators -----------------------------------------------------


@pytest.fixture(scope="module")
def car():
    from bnclassify.datasets import load_car

    X, y = load_car(return_X_y=True)
    rows = np.random.default_rng(0).choice(len(X), 400, replace=False)
    return X.iloc[rows].reset_index(drop=True), y.iloc[rows].reset_index(drop=True)


@pytest.mark.parametrize(
    "make",
    [NaiveBayes, TAN, lambda **kw: KDB(k=2, **kw), AODE, EnsembleTAN, KDBHC],
    ids=["nb", "tan", "kdb2", "aode", "ensemble", "kdbhc"],
)
def test_every_estimator_smooths_with_hls(car, make):
    X, y = car
    additive = make(random_state=0).fit(X, y).predict_proba(X)
    model = make(smoothing="hls", random_state=0).fit(X, y)
    proba = model.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
    assert np.isfinite(proba).all() and (proba > 0).all()
    assert not np.allclose(proba, additive)
    again = make(smoothing="hls", random_state=0).fit(X, y).predict_proba(X)
    np.testing.assert_array_equal(again, proba)


def test_kdb_tables_are_the_pooled_hls_of_its_families(car):
    X, y = car
    model = KDB(k=2, smoothing=HLS(ridge="cv")).fit(X, y)
    _, _, stats = training_statistics(X, y)
    names = list(X.columns)
    families = [
        stats.family(names.index(name), tuple(names.index(p) for p in factor.parents_))
        for name, factor in model.distributions_.items()
    ]
    tables = HLS().log_conditionals(families)
    for factor, table in zip(model.distributions_.values(), tables, strict=True):
        np.testing.assert_array_equal(factor.log_table_, table)


def test_row_weights_are_counts(car):
    X, y = car
    doubled = KDB(k=2, smoothing="hls").fit(X, y, sample_weight=np.full(len(y), 2.0))
    repeated = KDB(k=2, smoothing="hls").fit(pd.concat([X, X]), pd.concat([y, y]))
    np.testing.assert_allclose(doubled.predict_proba(X), repeated.predict_proba(X), atol=1e-12)
    halves = TAN(smoothing="hls").fit(X, y, sample_weight=np.full(len(y), 0.5))  # weighted rows
    assert np.isfinite(halves.predict_proba(X)).all()


def test_partial_fit_resmooths_the_accumulated_counts(car):
    X, y = car
    model = TAN(smoothing="hls")
    for rows in np.array_split(np.arange(len(X)), 3):
        model.partial_fit(X.iloc[rows], y.iloc[rows], classes=np.unique(y))
    whole = TAN(smoothing="hls").fit(X, y)
    np.testing.assert_allclose(model.predict_proba(X), whole.predict_proba(X), atol=1e-12)


def test_an_hls_model_saves_and_exports(car, tmp_path):
    X, y = car
    model = KDB(k=2, smoothing=HLS(ridge=2.0, root=False)).fit(X, y)
    loaded = load(dump(model, tmp_path / "kdb.bnc"))
    assert loaded.get_params()["smoothing"].get_params() == model.smoothing.get_params()
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    network = model.network_
    for factor in model.compiled_.factors:
        (feature,) = factor.columns_
        table = factor.table_
        cpd = network.get_cpds(feature).get_values()
        np.testing.assert_allclose(cpd, table.reshape(-1, table.shape[-1]).T)


@parametrize_with_checks(
    [
        NaiveBayes(smoothing="hls", distributions="categorical", handle_unknown="marginalize"),
        KDB(k=2, smoothing="hls", handle_unknown="marginalize"),
    ]
)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)
