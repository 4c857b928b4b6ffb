"""bnclassify.metrics: the CLL against scikit-learn and a loop, the scorer, evaluate()."""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import accuracy_score, f1_score, log_loss, precision_score, recall_score
from sklearn.model_selection import GridSearchCV, KFold, StratifiedKFold, cross_val_score
from sklearn.naive_bayes import CategoricalNB

from bnclassify import TAN, NaiveBayes, SimplerTAN
from bnclassify.datasets import load_car, load_p450, make_tree_classification
from bnclassify.metrics import (
    METRICS,
    cll_scorer,
    conditional_log_likelihood,
    evaluate,
    make_cll_scorer,
    study_cv,
    summarize,
)


def _loop_cll(y, proba, classes, base):
    """Obviously-correct reference: one row at a time."""
    total = 0.0
    for label, row in zip(y, proba, strict=True):
        total += math.log(row[list(classes).index(label)], base)
    return total


def _random_case(seed, n=40, n_classes=3):
    rng = np.random.default_rng(seed)
    proba = rng.dirichlet(np.ones(n_classes), size=n)
    classes = np.array(["a", "b", "c", "d"][:n_classes])
    y = classes[rng.integers(0, n_classes, size=n)]
    return y, proba, classes


@pytest.mark.parametrize("base", [2, math.e, 10])
def test_cll_matches_a_loop(base):
    y, proba, classes = _random_case(0)
    assert conditional_log_likelihood(y, proba, classes=classes, base=base) == pytest.approx(
        _loop_cll(y, proba, classes, base)
    )


def test_mean_in_nats_is_minus_sklearn_log_loss():
    y, proba, classes = _random_case(1)
    ours = conditional_log_likelihood(y, proba, classes=classes, base=math.e, reduce="mean")
    assert ours == pytest.approx(-log_loss(y, proba, labels=classes))


def test_column_order_follows_classes():
    y, proba, classes = _random_case(2)
    order = [2, 0, 1]
    a = conditional_log_likelihood(y, proba, classes=classes)
    b = conditional_log_likelihood(y, proba[:, order], classes=classes[order])
    assert a == pytest.approx(b)


def test_default_classes_are_sorted_labels_and_1d_proba_is_second_class():
    y = np.array([0, 1, 1, 0])
    p1 = np.array([0.2, 0.9, 0.6, 0.5])
    expected = math.log2(0.8) + math.log2(0.9) + math.log2(0.6) + math.log2(0.5)
    assert conditional_log_likelihood(y, p1) == pytest.approx(expected)
    assert conditional_log_likelihood(y, np.column_stack([1 - p1, p1])) == pytest.approx(expected)


def test_zero_probability_of_the_true_class_is_minus_infinity():
    assert conditional_log_likelihood([0, 1], [[1.0, 0.0], [1.0, 0.0]]) == -np.inf


@given(
    st.integers(0, 10_000),
    st.integers(1, 30),
    st.sampled_from([2, math.e]),
)
@settings(max_examples=40, deadline=None)
def test_sum_is_n_times_mean_and_bases_convert(seed, n, base):
    y, proba, classes = _random_case(seed, n=n)
    total = conditional_log_likelihood(y, proba, classes=classes, base=base)
    mean = conditional_log_likelihood(y, proba, classes=classes, base=base, reduce="mean")
    nats = conditional_log_likelihood(y, proba, classes=classes, base=math.e)
    assert total <= 0
    assert total == pytest.approx(n * mean)
    assert total == pytest.approx(nats / math.log(base))


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"proba": [[0.5, 0.5]]}, "shape"),
        ({"proba": [[0.5, np.nan], [0.5, 0.5]]}, "NaN"),
        ({"proba": [[1.5, -0.5], [0.5, 0.5]]}, r"\[0, 1\]"),
        ({"classes": ["x", "y", "z"]}, "3 classes"),
        ({"classes": ["a", "z"]}, "not in classes"),
        ({"base": 1}, "base"),
        ({"base": -2}, "base"),
        ({"reduce": "median"}, "reduce"),
    ],
)
def test_bad_input_raises_clear_errors(kwargs, message):
    args = {"y_true": ["a", "b"], "proba": [[0.5, 0.5], [0.2, 0.8]], **kwargs}
    y_true, proba = args.pop("y_true"), args.pop("proba")
    with pytest.raises(ValueError, match=message):
        conditional_log_likelihood(y_true, proba, **args)


def test_scorer_equals_the_function_on_every_fold():
    X, y = load_p450(return_X_y=True)
    cv = study_cv()
    scores = cross_val_score(NaiveBayes(), X, y, cv=cv, scoring=cll_scorer)
    for score, (train, test) in zip(scores, cv.split(X, y), strict=True):
        model = NaiveBayes().fit(X.iloc[train], y.iloc[train])
        proba = model.predict_proba(X.iloc[test])
        expected = _loop_cll(y.iloc[test], proba, model.classes_, 2)
        assert score == pytest.approx(expected)


def test_scorer_uses_the_models_classes_when_a_fold_lacks_one():
    X = np.array([[0], [1], [0], [1], [2]])
    y = np.array(["a", "b", "a", "b", "c"])
    model = NaiveBayes().fit(X, y)
    test = slice(0, 2)  # no "c" here
    expected = _loop_cll(y[test], model.predict_proba(X[test]), model.classes_, 2)
    assert cll_scorer(model, X[test], y[test]) == pytest.approx(expected)


def test_mean_scorer_in_grid_search():
    X, y = make_tree_classification(600, 5, random_state=0)
    search = GridSearchCV(
        NaiveBayes(), {"alpha": [0.5, 1.0]}, scoring=make_cll_scorer(base=math.e, reduce="mean")
    )
    search.fit(X, y)
    assert search.best_score_ < 0
    assert "reduce='mean'" in repr(make_cll_scorer(reduce="mean"))


def test_study_cv():
    assert isinstance(study_cv(), KFold) and study_cv().n_splits == 10
    cv = study_cv(5, stratified=True, random_state=3)
    assert isinstance(cv, StratifiedKFold) and cv.random_state == 3 and cv.shuffle


@pytest.fixture(scope="module")
def p450_evaluation():
    p450 = load_p450()
    models = {"NB": NaiveBayes(), "Simpler TAN": SimplerTAN(p450.contact_matrix), "TAN": TAN()}
    return p450, evaluate(models, p450.data, p450.target, progress=False)


def test_evaluate_columns_and_rows(p450_evaluation):
    _, (folds, summary) = p450_evaluation
    assert len(folds) == 30
    assert {"model", "fold", *METRICS} <= set(folds.columns)
    assert list(summary.index) == ["NB", "Simpler TAN", "TAN"]  # order kept
    assert (folds.n_train + folds.n_test == 955).all()
    assert (folds[["fit_s", "predict_s"]] > 0).all().all()
    stages = folds[["fit_weights_s", "fit_structure_s", "fit_parameters_s"]].sum(axis=1)
    assert (stages <= folds.fit_s).all()
    assert folds.attrs["cll"] == "log2, sum per fold"


def test_evaluate_metrics_equal_sklearn_on_each_fold(p450_evaluation):
    p450, (folds, _) = p450_evaluation
    X, y = p450.data, p450.target
    for fold, (train, test) in enumerate(study_cv().split(X, y)):
        model = TAN().fit(X.iloc[train], y.iloc[train])
        proba = model.predict_proba(X.iloc[test])
        y_pred = model.predict(X.iloc[test])
        y_test = y.iloc[test]
        row = folds[(folds.model == "TAN") & (folds.fold == fold)].iloc[0]
        assert row.accuracy == pytest.approx(accuracy_score(y_test, y_pred))
        for name, score in (
            ("precision_macro", precision_score),
            ("recall_macro", recall_score),
            ("f1_macro", f1_score),
        ):
            assert row[name] == pytest.approx(score(y_test, y_pred, average="macro"))
        assert row.cll == pytest.approx(_loop_cll(y_test, proba, model.classes_, 2))
        assert row.log_loss == pytest.approx(log_loss(y_test, proba, labels=model.classes_))


def test_evaluate_reproduces_the_study_on_p450(p450_evaluation):
    # SOURCES.md: NB 0.808 / -60.69, Simpler TAN 0.843 / -52.13 (log2, sum per fold)
    _, (_, summary) = p450_evaluation
    mean = summary.xs("mean", axis=1, level="stat")
    assert round(mean.loc["NB", "accuracy"], 3) == 0.808
    assert round(mean.loc["NB", "cll"], 2) == -60.69
    assert round(mean.loc["Simpler TAN", "accuracy"], 3) == 0.843
    assert round(mean.loc["Simpler TAN", "cll"], 2) == -52.13


def test_summary_is_mean_and_sd_of_the_folds(p450_evaluation):
    _, (folds, summary) = p450_evaluation
    nb = folds[folds.model == "NB"]
    assert summary.loc["NB", ("accuracy", "mean")] == pytest.approx(nb.accuracy.mean())
    assert summary.loc["NB", ("cll", "std")] == pytest.approx(nb.cll.std(ddof=1))
    assert summarize(folds).equals(summary)


def test_evaluate_a_scikit_learn_model_without_fit_times():
    X, y = make_tree_classification(300, 4, random_state=0)
    folds, summary = evaluate([CategoricalNB(), NaiveBayes(), NaiveBayes(alpha=2)], X, y, cv=3)
    assert list(summary.index) == ["CategoricalNB", "NaiveBayes", "NaiveBayes_2"]
    sk = folds[folds.model == "CategoricalNB"]
    assert sk.fit_weights_s.isna().all() and sk.fit_s.notna().all()
    assert sk.cll.notna().all() and (sk.cll < 0).all()
    ours = folds[folds.model == "NaiveBayes"]
    assert ours.fit_weights_s.notna().all()


def test_evaluate_accepts_explicit_splits_and_int_cv():
    X, y = make_tree_classification(200, 3, random_state=0)
    splits = [(np.arange(100), np.arange(100, 200)), (np.arange(100, 200), np.arange(100))]
    folds, _ = evaluate(NaiveBayes(), X, y, cv=splits, progress=False)
    assert list(folds.n_test) == [100, 100]
    folds, _ = evaluate(NaiveBayes(), X, y, cv=4, progress=False)
    expected = [len(t) for _, t in KFold(4, shuffle=True, random_state=42).split(X)]
    assert list(folds.n_test) == expected


def test_evaluate_progress_bar_goes_to_stderr(capsys):
    X, y = make_tree_classification(100, 3, random_state=0)
    evaluate({"NB": NaiveBayes()}, X, y, cv=2, progress=True)
    captured = capsys.readouterr()
    assert captured.out == "" and "NB" in captured.err


def test_evaluate_rejects_bad_models():
    X, y = make_tree_classification(50, 2, random_state=0)
    with pytest.raises(ValueError, match="at least one"):
        evaluate({}, X, y)
    with pytest.raises(TypeError, match="predict_proba"):
        evaluate({"x": object()}, X, y)


def test_evaluate_with_dataframe_and_series_keeps_labels():
    X, y = make_tree_classification(120, 3, as_frame=True, random_state=0)
    y = y.map({0: "no", 1: "yes"})
    folds, _ = evaluate({"NB": NaiveBayes()}, X, y, cv=3, progress=False)
    assert folds.accuracy.between(0, 1).all()
    assert isinstance(folds, pd.DataFrame)


def test_log_probabilities_scored_here_equal_scipy_normalisation():
    # predict_log_proba normalises with a numpy log-sum-exp; check it against scipy's
    from scipy.special import logsumexp

    X, y = make_tree_classification(500, 6, n_classes=3, random_state=4)
    model = TAN().fit(X[:400], y[:400])
    joint = model._joint_log_likelihood(X[400:])
    expected = joint - logsumexp(joint, axis=1, keepdims=True)
    np.testing.assert_allclose(model.predict_log_proba(X[400:]), expected, rtol=0, atol=1e-12)


def test_rows_impossible_under_every_class_raise():
    X = np.array([[0, 1], [1, 0]])
    model = NaiveBayes(alpha=0).fit(X, [0, 1])
    with pytest.raises(ValueError, match="probability 0 under every class"):
        model.predict_proba(np.array([[0, 0]]))


def test_a_test_class_missing_from_the_training_fold_gets_probability_zero():
    X = np.array([[0], [1], [0], [1], [1], [0]])
    y = np.array(["a", "b", "a", "b", "c", "c"])
    splits = [(np.arange(4), np.arange(4, 6)), (np.array([0, 1, 4, 5]), np.array([2, 3]))]
    folds, _ = evaluate({"NB": NaiveBayes()}, X, y, cv=splits, progress=False)
    assert list(folds.n_unseen_class) == [2, 0]
    assert folds.cll[0] == -np.inf and np.isfinite(folds.cll[1])
    assert folds.accuracy[0] == 0.0 and np.isfinite(folds.log_loss[0])


# -- the corrected resampled t test and parallel folds ------------------------------------------
def test_corrected_resampled_ttest_matches_the_formula():
    from scipy import stats

    from bnclassify.metrics import corrected_resampled_ttest

    rng = np.random.default_rng(7)
    for k, n_train, n_test in ((10, 900, 100), (30, 450, 50), (5, 80, 20)):
        a, b = rng.normal(0.8, 0.03, size=k), rng.normal(0.79, 0.03, size=k)
        d = a - b
        t = d.mean() / np.sqrt((1 / k + n_test / n_train) * d.var(ddof=1))
        p = 2 * stats.t.sf(abs(t), k - 1)
        result = corrected_resampled_ttest(a, b, n_train, n_test)
        assert result.statistic == pytest.approx(t, rel=1e-12, abs=1e-12)
        assert result.pvalue == pytest.approx(p, rel=1e-12, abs=1e-12)
        assert result.df == k - 1
        # without the correction it is the paired t test
        plain = corrected_resampled_ttest(a, b, n_train=1.0, n_test=0.0)
        reference = stats.ttest_rel(a, b)
        assert plain.statistic == pytest.approx(reference.statistic, rel=1e-12)
        assert plain.pvalue == pytest.approx(reference.pvalue, rel=1e-12)


def test_corrected_resampled_ttest_edge_cases():
    from bnclassify.metrics import corrected_resampled_ttest

    assert corrected_resampled_ttest([1, 2], [1, 2], 9, 1)[:2] == (0.0, 1.0)
    assert corrected_resampled_ttest([2, 3], [1, 2], 9, 1)[:2] == (np.inf, 0.0)
    assert np.isnan(corrected_resampled_ttest([-np.inf, 1], [0, 1], 9, 1).pvalue)
    with pytest.raises(ValueError, match="length"):
        corrected_resampled_ttest([1], [2], 9, 1)
    with pytest.raises(ValueError, match="n_train"):
        corrected_resampled_ttest([1, 2], [2, 2], 0, 1)


def test_evaluate_in_parallel_equals_serial():
    from bnclassify import TAN

    X, y = load_p450(return_X_y=True)
    models = {"NB": NaiveBayes(), "TAN": TAN()}
    serial, serial_summary = evaluate(models, X, y, cv=4, progress=False)
    parallel, _ = evaluate(models, X, y, cv=4, progress=False, n_jobs=2)
    timings = [c for c in serial.columns if c.endswith("_s")]
    pd.testing.assert_frame_equal(serial.drop(columns=timings), parallel.drop(columns=timings))
    assert (parallel[timings].drop(columns=["fit_weights_s"]) > 0).all().all()
    assert parallel.attrs == serial.attrs
    assert list(serial_summary.index) == ["NB", "TAN"]


def test_evaluate_metrics_equal_sklearn_with_rare_and_unpredicted_classes():
    from bnclassify.datasets import load_car

    X, y = load_car(return_X_y=True)
    X, y = X.iloc[::7].reset_index(drop=True), y.iloc[::7].reset_index(drop=True)
    splits = list(KFold(3, shuffle=True, random_state=0).split(X, y))
    folds, _ = evaluate({"NB": NaiveBayes(alpha=0.5)}, X, y, cv=splits, progress=False)
    for fold, (train, test) in enumerate(splits):
        model = NaiveBayes(alpha=0.5).fit(X.iloc[train], y.iloc[train])
        proba = model.predict_proba(X.iloc[test])
        y_pred = model.classes_[np.argmax(proba, axis=1)]
        y_test = y.iloc[test]
        row = folds.iloc[fold]
        assert row.accuracy == pytest.approx(accuracy_score(y_test, y_pred), abs=1e-12)
        for name, score in (
            ("precision_macro", precision_score),
            ("recall_macro", recall_score),
            ("f1_macro", f1_score),
        ):
            expected = score(
                y_test, y_pred, labels=model.classes_, average="macro", zero_division=0
            )
            assert row[name] == pytest.approx(expected, abs=1e-12)
        expected = log_loss(y_test, proba, labels=model.classes_)
        assert row.log_loss == pytest.approx(expected, abs=1e-12)


class _Noisy(NaiveBayes):
    """Naive Bayes that warns on every fit, as scikit-learn's target checks do per fold."""

    def fit(self, X, y, sample_weight=None):
        import warnings

        warnings.warn("noisy fit", UserWarning, stacklevel=2)
        return super().fit(X, y, sample_weight=sample_weight)


@pytest.mark.parametrize("n_jobs", [None, 2])
def test_evaluate_says_each_distinct_fold_warning_once(n_jobs):
    """Issue 27, item 4: a warning raised by every fold's fit is said once, also from joblib
    workers (whose warnings never reached the caller)."""
    import warnings

    X, y = load_car(return_X_y=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        evaluate({"noisy": _Noisy()}, X, y, cv=KFold(4), n_jobs=n_jobs, progress=False)
    assert [str(w.message) for w in caught if "noisy" in str(w.message)] == ["noisy fit"]
