"""MDLDiscretizer: cut points against a slow recursive reference, and transformer behaviour."""

import math
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_iris
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from bnclassify import TAN, MDLDiscretizer, NaiveBayes
from bnclassify.preprocessing import mdl_cut_points


def _entropy(labels):
    n = len(labels)
    return -sum(k / n * math.log2(k / n) for k in Counter(labels).values())


def reference_cut_points(x, y):
    """Fayyad and Irani (1993), literally: try every midpoint, recurse on both halves."""
    pairs = sorted(zip(x, y, strict=True), key=lambda p: p[0])

    def split(rows):
        values = [v for v, _ in rows]
        labels = [c for _, c in rows]
        n = len(rows)
        best = None
        for t in range(1, n):
            if values[t - 1] == values[t]:
                continue
            left, right = labels[:t], labels[t:]
            e = (len(left) * _entropy(left) + len(right) * _entropy(right)) / n
            if best is None or e < best[0] - 1e-12:
                best = (e, t)
        if best is None:
            return []
        e, t = best
        left, right = labels[:t], labels[t:]
        gain = _entropy(labels) - e
        k, k1, k2 = len(set(labels)), len(set(left)), len(set(right))
        delta = math.log2(3**k - 2) - (
            k * _entropy(labels) - k1 * _entropy(left) - k2 * _entropy(right)
        )
        if gain <= (math.log2(n - 1) + delta) / n:
            return []
        cut = (values[t - 1] + values[t]) / 2
        return split(rows[:t]) + [cut] + split(rows[t:])

    return split(pairs)


def test_iris_cut_points_equal_the_reference():
    X, y = load_iris(return_X_y=True)
    model = MDLDiscretizer().fit(X, y)
    for j in range(4):
        expected = reference_cut_points(X[:, j].tolist(), y.tolist())
        np.testing.assert_allclose(model.cut_points_[j], expected, rtol=0, atol=1e-12)
    # petal length: the first cut separates setosa (max 1.9) from the rest (min 3.0)
    setosa, others = X[y == 0, 2].max(), X[y != 0, 2].min()
    assert model.cut_points_[2][0] == (setosa + others) / 2
    assert list(model.n_bins_) == [3, 3, 3, 3]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32 - 1), st.integers(2, 120), st.integers(2, 4), st.integers(2, 30))
def test_random_cut_points_equal_the_reference(seed, n, n_classes, n_values):
    rng = np.random.default_rng(seed)
    x = rng.integers(0, n_values, n) / 4.0  # many ties
    y = (x * rng.random() * 3 + rng.integers(0, 2, n)).astype(int) % n_classes
    np.testing.assert_allclose(
        mdl_cut_points(x, y), reference_cut_points(x.tolist(), y.tolist()), atol=1e-12
    )


def test_transform_bins_by_cut_points_and_keeps_names():
    X, y = load_iris(return_X_y=True, as_frame=True)
    model = MDLDiscretizer().fit(X, y)
    codes = model.transform(X)
    assert codes.dtype == np.int64
    for j in range(4):
        expected = np.digitize(X.iloc[:, j], model.cut_points_[j], right=True)
        np.testing.assert_array_equal(codes[:, j], expected)
    assert list(model.n_bins_) == [3, 3, 3, 3]
    assert list(model.get_feature_names_out()) == list(X.columns)
    frame = model.set_output(transform="pandas").transform(X)
    assert list(frame.columns) == list(X.columns)


def test_uninformative_feature_gets_one_bin():
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.normal(size=200), np.repeat([0.0, 1.0], 100)])
    y = np.repeat([0, 1], 100)
    model = MDLDiscretizer().fit(X, y)
    assert len(model.cut_points_[0]) == 0 and model.cut_points_[1].tolist() == [0.5]
    assert (model.transform(X)[:, 0] == 0).all()


def test_pipeline_makes_a_discretised_tan():
    X, y = load_iris(return_X_y=True, as_frame=True)
    pipe = make_pipeline(MDLDiscretizer(), TAN())
    pipe.fit(X, y)
    tan = pipe[-1]
    assert set(tan.feature_kinds_) == {"categorical"} and all(
        d.discrete for d in tan.distributions_.values()
    )
    assert cross_val_score(make_pipeline(MDLDiscretizer(), NaiveBayes()), X, y, cv=5).mean() > 0.9


def test_missing_values_are_rejected():
    X = np.array([[1.0], [np.nan], [3.0]])
    with pytest.raises(ValueError, match="NaN"):
        MDLDiscretizer().fit(X, [0, 1, 1])
    X = pd.DataFrame({"a": ["x", "y", "z"]})
    with pytest.raises(ValueError):
        MDLDiscretizer().fit(X, [0, 1, 1])


@parametrize_with_checks([MDLDiscretizer()])
def test_sklearn_compatible_transformer(estimator, check):
    check(estimator)


def test_mixed_table_passes_non_numeric_columns_through_in_a_pipeline():
    import warnings

    from sklearn.model_selection import StratifiedKFold, cross_validate
    from sklearn.pipeline import make_pipeline

    from bnclassify import TAN
    from bnclassify.datasets import make_census_table

    table = make_census_table(600)
    X, y = table.drop(columns="income"), table["income"]
    mdl = MDLDiscretizer().fit(X, y)
    out = mdl.transform(X)
    assert list(out.columns) == list(X.columns)
    assert list(mdl.get_feature_names_out()) == list(X.columns)
    for name in ["workclass", "occupation", "married", "sex"]:
        pd.testing.assert_series_equal(out[name], X[name])
    assert mdl.cut_points_[X.columns.get_loc("sex")] is None
    assert out["age"].dtype == np.int64
    assert list(mdl.set_output(transform="pandas").transform(X).columns) == list(X.columns)
    chosen = MDLDiscretizer(columns=["age"]).fit(X, y)
    pd.testing.assert_series_equal(chosen.transform(X)["hours_per_week"], X["hours_per_week"])
    with pytest.raises(ValueError, match="not numeric"):
        MDLDiscretizer(columns=["sex"]).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scores = cross_validate(
            make_pipeline(MDLDiscretizer(), TAN()),
            X,
            y,
            cv=StratifiedKFold(3, shuffle=True, random_state=0),
            scoring="neg_log_loss",
            error_score="raise",
        )
    assert np.isfinite(scores["test_score"]).all()


def test_missing_numbers_in_a_frame_stay_missing():
    X = pd.DataFrame({"a": [1.0, np.nan, 3.0, 4.0, 5.0, 6.0], "b": list("xyxyxy")})
    out = MDLDiscretizer().fit(X, [0, 0, 0, 1, 1, 1]).transform(X)
    assert out["a"].isna().tolist() == [False, True, False, False, False, False]
