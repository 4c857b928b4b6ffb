"""The wrapper learners (TANHC, TANHCSP, FSSJ, BSEJ, KDBHC): R's search, fast and exact."""

import os
import tempfile

import numpy as np
import pandas as pd
import pytest
from _checks import parametrize_with_checks
from _wrapper_reference import naive_search
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.utils import check_random_state

from bnclassify import BSEJ, FSSJ, KDBHC, TAN, TANHC, TANHCSP
from bnclassify.classifiers._search import FoldScorer, ode_arcs, stratified_folds
from bnclassify.datasets import load_car, load_p450
from bnclassify.io import dump, load

WRAPPERS = [TANHC, TANHCSP, FSSJ, BSEJ, KDBHC]


def small_tables():
    car_X, car_y = load_car(return_X_y=True)
    p450_X, p450_y = load_p450(return_X_y=True)
    rng = np.random.default_rng(3)
    car_rows = np.sort(rng.choice(len(car_X), 150, replace=False))
    p450_rows = np.sort(rng.choice(len(p450_X), 120, replace=False))
    return [
        ("car", car_X.iloc[car_rows].reset_index(drop=True), car_y.iloc[car_rows]),
        ("p450", p450_X.iloc[p450_rows].reset_index(drop=True), p450_y.iloc[p450_rows]),
    ]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("cls", "epsilon"),
    # every wrapper searches to the end; a positive epsilon stops a forward and a backward one
    [(cls, 0.0) for cls in WRAPPERS] + [(TANHC, 0.01), (BSEJ, 0.01)],
    ids=lambda value: getattr(value, "__name__", str(value)),
)
def test_search_path_equals_a_refit_from_rows_per_candidate(cls, epsilon):
    # the reference refits every candidate on every fold: three folds test the same
    # equality (each fold's refit, the folds' mean) at about half the cost of five
    for _, X, y in small_tables():
        model = cls(epsilon=epsilon, random_state=1, cv=3).fit(X, y)
        slow = naive_search(model, X, y, epsilon)
        assert [move for _, move, _ in slow.path] == list(model.search_path_.move)
        np.testing.assert_allclose(
            [score for _, _, score in slow.path], model.search_path_.score, rtol=0, atol=1e-12
        )
        assert slow.n_evaluated == model.n_candidates_


@pytest.mark.parametrize("cls", WRAPPERS)
def test_scores_never_decrease_by_more_than_nothing_and_moves_are_accepted_by_epsilon(cls):
    X, y = load_p450(return_X_y=True)
    path = cls(epsilon=0.005, random_state=0).fit(X, y).search_path_
    assert path.move.iloc[0] == "start"
    assert (np.diff(path.score) >= 0.005 - 1e-12).all()


def test_the_final_structure_is_the_last_accepted_move():
    X, y = load_p450(return_X_y=True)
    model = TANHC(epsilon=0.0, random_state=0).fit(X, y)
    arcs = [m.removeprefix("arc ").split(" -> ") for m in model.search_path_.move[1:]]
    feature_arcs = {(a, b) for a, b in model.structure_.edges if a != model.class_node_}
    assert {tuple(a) for a in arcs} == feature_arcs
    assert all(len(p) <= 1 for p in model.describe().parents)


def test_tan_hc_offers_the_arc_between_orphans_that_r_keeps():
    # R's augment_ode_arcs on a naive Bayes over a, b, c, d and after adding b -> d
    # (benchmarks/r_compare.R's R bnclassify): the later orphan's arc to the earlier one
    everything = np.ones(4, bool)
    assert ode_arcs({j: () for j in range(4)}, everything) == [
        (1, 0),
        (2, 0),
        (2, 1),
        (3, 0),
        (3, 1),
        (3, 2),
    ]
    r_after_b_to_d = {(3, 0), (3, 2), (1, 0), (2, 0), (2, 1)}
    assert set(ode_arcs({0: (), 1: (), 2: (), 3: (1,)}, everything)) == r_after_b_to_d


def test_with_smoothing_the_two_directions_of_an_arc_score_differently():
    # why the direction kept matters: Markov equivalent, but not the same smoothed model
    X, y = load_p450(return_X_y=True)
    labels, y_codes = np.unique(np.asarray(y), return_inverse=True)
    folds = stratified_folds(y_codes, 5, check_random_state(0))
    codes = np.column_stack([X[c].cat.codes.to_numpy() for c in X.columns])
    cards = np.array([len(X[c].cat.categories) for c in X.columns])
    scorer = FoldScorer(codes, y_codes, cards, len(labels), folds, 1.0)
    forward = scorer.total({0: (), 1: (0,)})
    backward = scorer.total({0: (1,), 1: ()})
    assert not np.allclose(forward, backward)
    unsmoothed = FoldScorer(codes, y_codes, cards, len(labels), folds, 1e-10)
    np.testing.assert_allclose(
        unsmoothed.total({0: (), 1: (0,)}), unsmoothed.total({0: (1,), 1: ()}), atol=1e-6
    )


def test_kdbhc_bounds_the_feature_parents():
    X, y = load_car(return_X_y=True)
    for k in (1, 2, 3):
        model = KDBHC(k=k, epsilon=0.0, random_state=0).fit(X, y)
        assert max(len(p) for p in model.describe().parents) <= k


def test_fssj_joins_are_cliques_and_left_out_features_change_nothing():
    X, y = load_p450(return_X_y=True)
    model = FSSJ(random_state=0).fit(X, y)
    left_out = [f for f in X.columns if f not in model.selected_features_]
    assert left_out  # the search keeps fewer features on p450
    parents = dict(zip(X.columns, model.describe().parents, strict=True))
    joins = [m for m in model.search_path_.move if m.startswith("join")]
    assert joins
    for move in joins:
        child, group = move.removeprefix("join ").split(" to ")
        assert set(group.strip("{}").split(", ")) <= set(parents[child])
    for f in left_out:
        table = model.distributions_[f].table_
        np.testing.assert_allclose(table, np.broadcast_to(table[0], table.shape))
    kept = model.predict_proba(X)
    shuffled = X.copy()
    for f in left_out:
        shuffled[f] = np.random.default_rng(0).permutation(shuffled[f].to_numpy())
    np.testing.assert_allclose(model.predict_proba(shuffled), kept)


@pytest.mark.usefixtures("densities")  # continuous nodes: Gaussian, kept out of arcs
def test_a_mixed_table_keeps_continuous_columns_out_of_arcs_and_joins():
    rng = np.random.default_rng(0)
    n = 400
    y = rng.integers(0, 2, n)
    a = (y + (rng.random(n) < 0.2)) % 2
    X = pd.DataFrame(
        {
            "a": a.astype(str),
            "b": ((a + (rng.random(n) < 0.1)) % 2).astype(str),
            "signal": rng.normal(y * 2.0, 1.0),
            "noise": rng.normal(0.0, 1.0, n),
        }
    )
    for cls in WRAPPERS:
        model = cls(epsilon=0.0, random_state=0).fit(X, y)
        kinds = dict(zip(X.columns, model.feature_kinds_, strict=True))
        for child, parents in zip(X.columns, model.describe().parents, strict=True):
            if kinds[child] != "categorical":
                assert parents == []
            assert all(kinds[p] == "categorical" for p in parents)
        if "noise" not in model.selected_features_:
            proba = model.predict_proba(X)
            moved = X.assign(noise=X.noise[::-1].to_numpy())
            np.testing.assert_allclose(model.predict_proba(moved), proba)
        assert model.predict(X.iloc[:3].assign(signal=np.nan)).shape == (3,)


@pytest.mark.parametrize("cls", WRAPPERS)
def test_save_and_load_through_io(cls):
    X, y = load_car(return_X_y=True)
    model = cls(random_state=0, epsilon=0.0).fit(X, y)
    again = load(dump(model, os.path.join(tempfile.mkdtemp(), "w.bnc")))
    assert np.array_equal(again.predict_proba(X), model.predict_proba(X))
    pd.testing.assert_frame_equal(again.search_path_, model.search_path_)
    assert again.selected_features_ == model.selected_features_


def test_bad_parameters_name_themselves():
    X, y = load_car(return_X_y=True)
    with pytest.raises(ValueError, match="cv"):
        TANHC(cv=1).fit(X, y)
    with pytest.raises(ValueError, match="epsilon"):
        TANHC(epsilon=-0.1).fit(X, y)
    with pytest.raises(ValueError, match="k"):
        KDBHC(k=0).fit(X, y)
    with pytest.raises(ValueError, match="'x0' \\(kde\\)"):
        FSSJ(distributions="kde").fit(np.random.default_rng(0).normal(size=(30, 1)), [0, 1] * 15)
    with pytest.raises(AttributeError, match="partial_fit"):
        TANHC().partial_fit(X, y)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.integers(0, 3), min_size=6, max_size=60),
    st.integers(2, 6),
    st.integers(0, 1000),
)
def test_stratified_folds_deal_each_class_evenly(y, k, seed):
    y = np.asarray(y)
    if k > len(y):
        with pytest.raises(ValueError, match="cv"):
            stratified_folds(y, k, np.random.default_rng(seed))
        return
    folds = stratified_folds(y, k, np.random.default_rng(seed))
    for c in np.unique(y):
        per_fold = np.bincount(folds[y == c], minlength=k)
        assert per_fold.max() - per_fold.min() <= 1
    sizes = np.bincount(folds, minlength=k)
    assert sizes.max() - sizes.min() <= 1


@parametrize_with_checks([cls(random_state=0) for cls in WRAPPERS])
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)


def test_the_search_path_figure_names_every_accepted_move_and_structures_plot():
    import matplotlib

    matplotlib.use("Agg")
    from bnclassify.plotting import drawn_edges, plot_search_path, plot_structure

    X, y = load_p450(return_X_y=True)
    model = BSEJ(epsilon=0.0, random_state=0).fit(X, y)
    ax = plot_search_path(model)
    assert [t.get_text() for t in ax.texts] == list(model.search_path_.move)
    np.testing.assert_allclose(ax.lines[0].get_ydata(), model.search_path_.score)
    drawn = set(drawn_edges(plot_structure(model)))
    assert set(model.structure_.edges) <= drawn | {(b, a) for a, b in drawn}
    with pytest.raises(TypeError, match="wrapper"):
        plot_search_path(TAN().fit(X, y))


def test_explanations_give_left_out_features_no_credit():
    from bnclassify.explain import explain

    X, y = load_p450(return_X_y=True)
    model = FSSJ(random_state=0).fit(X, y)
    values = np.asarray(explain(model, X.iloc[:20]).values)
    left_out = [j for j, f in enumerate(X.columns) if f not in model.selected_features_]
    assert left_out
    np.testing.assert_allclose(values[:, left_out], 0.0, atol=1e-9)
    assert np.abs(values).max() > 0.01
