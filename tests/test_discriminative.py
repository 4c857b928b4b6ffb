"""objective="conditional": parameters refined for the conditional log-likelihood."""

import os
import tempfile

import numpy as np
import pandas as pd
import pytest
from _checks import parametrize_with_checks
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import logsumexp
from sklearn.datasets import load_iris

from bnclassify import KDB, TAN, NaiveBayes, SimplerTAN
from bnclassify.datasets import load_car, load_p450, load_vote
from bnclassify.discriminative import L2_GRID, conditional_network, cross_validated_l2
from bnclassify.io import dump, load
from bnclassify.network import fit_network
from bnclassify.stats import training_statistics


def models(p450):
    return [
        NaiveBayes,
        TAN,
        lambda **kw: SimplerTAN(p450.contact_matrix, **kw),
        lambda **kw: KDB(k=1, **kw),
        lambda **kw: KDB(k=2, **kw),
    ]


@pytest.mark.parametrize("load_set", [load_vote, load_p450])
def test_the_training_cll_improves_and_the_tables_stay_distributions(load_set):
    p450 = load_p450()
    X, y = load_set(return_X_y=True)
    for make in models(p450):
        if load_set is load_vote and make is not NaiveBayes and make is not TAN:
            continue  # contacts are p450's; KDB on vote's missing cells is slow to enumerate
        joint = make().fit(X, y)
        conditional = make(objective="conditional").fit(X, y)
        assert conditional.conditional_log_likelihood(X, y) > joint.conditional_log_likelihood(X, y)
        assert conditional.structure_.edges == joint.structure_.edges
        np.testing.assert_allclose(np.exp(conditional.compiled_.log_prior).sum(), 1.0)
        for factor in conditional.distributions_.values():
            np.testing.assert_allclose(factor.table_.sum(axis=-1), 1.0)


def fitted_and_encoded(model, X, y):
    """``model`` fitted, and the training rows as its network reads them: codes, values, labels."""
    model.fit(X, y)
    return model, *model.encode(X), np.searchsorted(model.classes_, y)


def posteriors(network, codes, values):
    joint = network.joint_log_likelihood(codes, values)
    return np.exp(joint - logsumexp(joint, axis=1, keepdims=True))


@pytest.mark.parametrize("make", [NaiveBayes, TAN])
def test_without_regularisation_a_tree_matches_expected_and_observed_counts(make):
    # the optimum of a log-linear model's likelihood: for every family cell and class,
    # sum_n P(c | x_n) 1[cell] = N(c, cell); renormalising into CPTs must keep it
    X, y = load_car(return_X_y=True)
    model, codes, values, labels = fitted_and_encoded(make(), X, y)
    refined = conditional_network(model.compiled_, codes, values, labels, l2=1e-9)
    proba = posteriors(refined, codes, values)
    onehot = np.eye(len(model.classes_))[labels]
    for j in range(codes.shape[1]):
        family = [*refined.parents[j], j]
        cells = np.ravel_multi_index(
            tuple(codes[:, family].T), [model.categories_[f].size for f in family]
        )
        for c in range(len(model.classes_)):
            observed = np.bincount(cells, onehot[:, c])
            expected = np.bincount(cells, proba[:, c])
            np.testing.assert_allclose(expected, observed, atol=0.5)
    prior_gap = proba.sum(axis=0) - onehot.sum(axis=0)
    np.testing.assert_allclose(prior_gap, 0.0, atol=0.5)


def test_a_strong_pull_keeps_the_joint_parameters():
    X, y = load_p450(return_X_y=True)
    model, codes, values, labels = fitted_and_encoded(TAN(), X, y)
    refined = conditional_network(model.compiled_, codes, values, labels, l2=1e9)
    np.testing.assert_allclose(
        posteriors(refined, codes, values), model.predict_proba(X), atol=1e-5
    )


def test_gaussian_nodes_keep_their_joint_fit():
    iris = load_iris(as_frame=True)
    X = iris.data.assign(odd=(iris.target.to_numpy() % 2).astype(str))
    joint = TAN(distributions="density").fit(X, iris.target)
    conditional = TAN(objective="conditional", distributions="density").fit(X, iris.target)
    assert set(joint.feature_kinds_[:4]) == {"gaussian"}
    for name in iris.data.columns:
        a, b = joint.distributions_[name], conditional.distributions_[name]
        np.testing.assert_array_equal(a.intercept_, b.intercept_)
        np.testing.assert_array_equal(a.var_, b.var_)
    assert not np.allclose(
        joint.distributions_["odd"].table_, conditional.distributions_["odd"].table_
    )


def test_conditional_models_save_and_load_and_refuse_partial_fit():
    X, y = load_car(return_X_y=True)
    model = TAN(objective="conditional").fit(X, y)
    again = load(dump(model, os.path.join(tempfile.mkdtemp(), "tan.bnc")))
    assert np.array_equal(again.predict_proba(X), model.predict_proba(X))
    assert not hasattr(model, "partial_fit")
    with pytest.raises(ValueError, match="objective"):
        TAN(objective="discriminative").fit(X, y)
    with pytest.raises(ValueError, match="l2"):
        conditional_network(model.compiled_, *model.encode(X), np.zeros(len(y), int), l2=-1)


def test_missing_cells_are_summed_out_at_prediction():
    X, y = load_vote(return_X_y=True)
    model = TAN(objective="conditional").fit(X, y)
    proba = model.predict_proba(X)
    assert np.isfinite(proba).all()
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    one = X.iloc[:1].copy()
    one.iloc[0, :] = np.nan
    np.testing.assert_allclose(
        model.predict_proba(one)[0], np.exp(model.compiled_.log_prior), rtol=1e-9
    )


def _chain(features):
    """Contacts between neighbouring features only: a chain, whatever the data's width."""
    m = len(features)
    return np.eye(m, k=1) + np.eye(m, k=-1)


# The inner cross-validation of l2="cv" (the default) is the same code for every structure and
# costs most of these checks: it is checked on TAN and KDB(k=2), the other structures with a
# fixed strength.
@parametrize_with_checks(
    [
        NaiveBayes(objective="conditional", l2=1.0),
        TAN(objective="conditional"),
        TAN(objective="conditional", l2=3.0),
        SimplerTAN(contact_matrix=_chain, objective="conditional", l2=1.0),
        KDB(k=1, objective="conditional", l2=1.0),
        KDB(k=2, objective="conditional"),
        KDB(k=2, objective="conditional", l2=1.0),
    ],
    expected_failed_checks=lambda estimator: (
        {
            "check_sample_weight_equivalence_on_dense_data": (
                "l2='cv' picks the strength by an inner cross-validation over rows: a row of "
                "weight 2 lies in one fold, its two copies may lie in two (as in "
                "scikit-learn's LogisticRegressionCV); with a fixed l2 the check passes"
            )
        }
        if isinstance(estimator, KDB) and estimator.k == 2 and estimator.l2 == "cv"
        else {}
    ),
)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)


def test_a_pandas_frame_with_a_constant_column_still_fits():
    X = pd.DataFrame({"a": ["x"] * 10, "b": list("xyxyxyxyxy")})
    y = [0, 1] * 5
    assert TAN(objective="conditional").fit(X, y).score(X, y) == 1.0


def test_bmatan_map_tree_with_conditional_parameters_through_simpler_tan():
    # a spanning tree maximises the sum of its m - 1 edge weights, so shifting every
    # weight by one constant keeps BMATAN's MAP tree: Simpler TAN on the shifted log
    # weights is that tree, and objective="conditional" refines its tables
    from bnclassify import BMATAN

    X, y = load_p450(return_X_y=True)
    bma = BMATAN().fit(X, y)
    weights = bma.log_edge_weights_.to_numpy()
    off = ~np.eye(len(weights), dtype=bool)
    shifted = np.where(off, weights - weights[off].min() + 1.0, 0.0)
    shifted = pd.DataFrame(shifted, index=X.columns, columns=X.columns)
    tan = SimplerTAN(shifted, objective="conditional").fit(X, y)
    assert set(tan.structure_.edges) == set(bma.structure_.edges)
    assert tan.conditional_log_likelihood(X, y) > SimplerTAN(shifted).fit(
        X, y
    ).conditional_log_likelihood(X, y)


def held_out_cll(network, codes, values, labels):
    return float(np.log(posteriors(network, codes, values))[np.arange(len(labels)), labels].sum())


@pytest.mark.parametrize("load_set", [load_car, load_vote])
def test_inner_cv_picks_the_strength_with_the_best_held_out_cll(load_set):
    # each strength refitted from the joint start on each fold's training rows and scored on
    # the fold (no warm start): the warm-started search must pick the same best strength
    X, y = load_set(return_X_y=True)
    model, codes, values, labels = fitted_and_encoded(TAN(), X, y)
    folds = np.random.default_rng(1).permutation(len(y)) % 3
    seen = []

    def fit_fold(rows):
        seen.append(rows)
        schema, _, stats = training_statistics(X.iloc[rows], y.iloc[rows])
        return fit_network(stats, schema, model.compiled_.parents, 1.0)

    grid = (0.1, 1.0, 10.0)
    l2, scores = cross_validated_l2(codes, values, labels, folds, fit_fold, grid=grid)
    for k, rows in enumerate(seen):  # a fold's network never saw the fold
        assert not np.isin(rows, np.flatnonzero(folds == k)).any()
    expected = np.zeros(len(grid))
    for k, rows in enumerate(list(seen)):
        held = folds == k
        net = fit_fold(rows)
        for g, strength in enumerate(grid):
            refined = conditional_network(net, codes[rows], None, labels[rows], l2=strength)
            expected[g] += held_out_cll(refined, codes[held], None, labels[held])
    np.testing.assert_allclose(scores, expected, rtol=1e-4)
    assert l2 == grid[int(np.argmax(expected))]


def test_l2_cv_is_deterministic_reads_only_training_rows_and_is_saved():
    X, y = load_car(return_X_y=True)
    a = TAN(objective="conditional", l2="cv").fit(X, y)
    b = TAN(objective="conditional", l2="cv").fit(X, y)
    assert a.l2_ == b.l2_ and a.l2_ in L2_GRID
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    fixed = TAN(objective="conditional", l2=a.l2_).fit(X, y)  # the same fit at that strength
    np.testing.assert_allclose(fixed.predict_proba(X), a.predict_proba(X), atol=1e-12)
    again = load(dump(a, os.path.join(tempfile.mkdtemp(), "tan.bnc")))
    assert again.l2_ == a.l2_ and again.l2 == "cv"
    assert not hasattr(TAN(l2="cv").fit(X, y), "l2_")  # the joint fit uses no strength


@pytest.mark.parametrize("bad", [-1.0, "auto", np.inf, True])
def test_a_bad_l2_is_refused_by_name(bad):
    X, y = load_car(return_X_y=True)
    with pytest.raises(ValueError, match="l2"):
        NaiveBayes(objective="conditional", l2=bad).fit(X, y)


@pytest.mark.parametrize(
    "make",
    [
        lambda p450: NaiveBayes(objective="conditional"),
        lambda p450: SimplerTAN(p450.contact_matrix, objective="conditional"),
        lambda p450: KDB(k=2, objective="conditional"),
        lambda p450: NaiveBayes(weighting="wanbia"),
    ],
    ids=["nb", "simpler-tan", "kdb2", "nb-wanbia"],
)
def test_structure_plots_and_explanations_read_the_refined_tables(make):
    from bnclassify.explain import explain
    from bnclassify.plotting import drawn_edges, plot_structure

    p450 = load_p450()
    X, y = p450.data, p450.target
    model = make(p450).fit(X, y)
    drawn = set(drawn_edges(plot_structure(model)))
    assert set(model.structure_.edges) <= drawn | {(b, a) for a, b in drawn}
    rows = X.iloc[:15]
    explanation = explain(model, rows, method="conditional")
    # efficiency: the contributions add up to the model's own log-odds, so they read the
    # refined tables (the joint ones would give other log-odds)
    total = np.asarray(explanation.values).sum(axis=1) + np.asarray(explanation.base_values)
    log_proba = model.predict_log_proba(rows)
    np.testing.assert_allclose(total, log_proba[:, 1] - log_proba[:, 0], atol=1e-8)


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000), st.integers(12, 60), st.integers(2, 3))
def test_l2_cv_on_any_small_table_picks_a_grid_strength_and_improves_the_training_cll(
    seed, n, n_classes
):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % n_classes  # every class present
    X = pd.DataFrame(
        {
            "a": np.where(rng.random(n) < 0.7, y, rng.integers(0, 3, n)).astype(str),
            "b": rng.integers(0, 2, n).astype(str),
        }
    )
    joint = TAN().fit(X, y)
    model = TAN(objective="conditional").fit(X, y)
    assert model.l2_ in L2_GRID
    np.testing.assert_allclose(model.predict_proba(X).sum(axis=1), 1.0)
    assert model.conditional_log_likelihood(X, y) >= joint.conditional_log_likelihood(X, y) - 1e-9


# -- refine_reached_rows: a selective KDB's tables, only the rows the data reach ---------


def _kdb2_problem(seed=0, n=120, missing=False):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({f"a{j}": rng.choice(list("xyz"), n) for j in range(4)})
    y = np.where((X["a0"] == X["a1"]) ^ (rng.random(n) < 0.2), "p", "q")
    if missing:
        X.loc[rng.random(n) < 0.1, "a2"] = None
    model = KDB(k=2).fit(X, y)
    codes, values = model.encode(X)
    return model, codes, values, np.searchsorted(model.classes_, y)


def test_reached_rows_reach_the_optimum_of_the_whole_tables():
    """The rows no training row reaches have no data term: refining only the others finds
    the optimum of refining every row (the full-table solver, an independent code)."""
    from bnclassify.discriminative import refine_reached_rows

    model, codes, values, labels = _kdb2_problem()
    whole = conditional_network(model.compiled_, codes, values, labels, l2=3.0)
    reached = refine_reached_rows(model.compiled_, codes, labels, range(4), l2=3.0, max_iter=2000)
    np.testing.assert_allclose(
        posteriors(reached, codes, values), posteriors(whole, codes, values), atol=1e-5
    )
    for factor in reached.factors:
        np.testing.assert_allclose(np.exp(factor.log_table_).sum(axis=-1), 1.0)


def test_rows_no_training_row_reaches_keep_their_generative_tables():
    from bnclassify.discriminative import refine_reached_rows

    model, codes, _, labels = _kdb2_problem(1, n=40)
    refined = refine_reached_rows(model.compiled_, codes, labels, [0, 1, 2, 3], l2=1.0)
    for before, after in zip(model.compiled_.factors, refined.factors, strict=True):
        parents = list(before.discrete_parent_positions)
        table = before.log_table_
        reached = np.zeros(table.shape[1:-1], dtype=bool)
        reached[tuple(codes[:, parents].T)] = True
        np.testing.assert_array_equal(after.log_table_[:, ~reached], table[:, ~reached])
        assert not np.allclose(after.log_table_[:, reached], table[:, reached])


def test_columns_left_out_of_the_refinement_keep_their_tables_and_weights_are_counts():
    from bnclassify.discriminative import refine_reached_rows

    model, codes, _, labels = _kdb2_problem(2, missing=True)
    refined = refine_reached_rows(model.compiled_, codes, labels, [0, 1], l2=1.0)
    for j in (2, 3):
        k = model.compiled_.node_of[j]
        assert refined.factors[k] is model.compiled_.factors[k]
    twice = refine_reached_rows(
        model.compiled_, codes, labels, [0, 1], sample_weight=np.full(len(labels), 2.0), l2=2.0
    )
    doubled = refine_reached_rows(
        model.compiled_, np.vstack([codes, codes]), np.tile(labels, 2), [0, 1], l2=2.0
    )
    np.testing.assert_allclose(
        posteriors(twice, codes, None), posteriors(doubled, codes, None), atol=1e-6
    )


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.floats(0.05, 20.0))
def test_the_refinement_raises_the_penalised_training_cll(seed, l2):
    from bnclassify.discriminative import refine_reached_rows

    model, codes, values, labels = _kdb2_problem(seed, n=60, missing=seed % 2 == 1)
    refined = refine_reached_rows(model.compiled_, codes, labels, range(4), l2=l2)

    def cll(network):
        return np.log(posteriors(network, codes, values)[np.arange(len(labels)), labels]).sum()

    assert cll(refined) >= cll(model.compiled_) - 1e-9
    assert np.isfinite(posteriors(refined, codes, values)).all()
