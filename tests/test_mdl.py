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
from bnclassify.exceptions import NoCutPointWarning
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
    with pytest.warns(NoCutPointWarning, match=r"1 column\(s\) \[0\]"):
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


def test_missing_values_in_an_array_are_refused_by_column():
    X = np.array([[1.0, 2.0], [2.0, np.nan], [3.0, 1.0]])
    with pytest.raises(ValueError, match="Column 1 has missing values .NaN. .first at row 1"):
        MDLDiscretizer().fit(X, [0, 1, 1])
    fitted = MDLDiscretizer().fit(pd.DataFrame({"a": [1.0, 2.0, 3.0]}), [0, 1, 1])
    with pytest.raises(ValueError, match="Column 'a' has missing values .*columns="):
        fitted.transform(pd.DataFrame({"a": [np.nan]}))


@pytest.mark.filterwarnings("ignore::bnclassify.exceptions.NoCutPointWarning")
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
    with pytest.warns(NoCutPointWarning, match="'fnlwgt'"):
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


# -- issue 32 item 4: tables a Pipeline over a collection meets ------------------------------------
def test_a_table_without_numeric_columns_passes_through_a_pipeline():
    """All-categorical sets (car, vote, ...) used to stop MDLDiscretizer in a Pipeline."""
    from bnclassify.datasets import load_vote

    X, y = load_vote(return_X_y=True)
    mdl = MDLDiscretizer().fit(X, y)
    assert mdl.cut_points_ == [None] * X.shape[1] and not mdl.n_bins_.any()
    pd.testing.assert_frame_equal(mdl.transform(X), X)
    booleans = pd.DataFrame({"b": [True, False] * 5, "n": pd.array([True, None] * 5, "boolean")})
    pd.testing.assert_frame_equal(
        MDLDiscretizer().fit(booleans, [0, 1] * 5).transform(booleans), booleans
    )
    piped = cross_val_score(make_pipeline(MDLDiscretizer(), NaiveBayes()), X, y, cv=3)
    plain = cross_val_score(NaiveBayes(), X, y, cv=3)
    np.testing.assert_array_equal(piped, plain)


def test_columns_without_a_cut_are_named_in_one_warning():
    """tae: MDL finds no cut for any column; the transformed table keeps only the prior."""
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 50)
    X = pd.DataFrame(
        {
            "noise": rng.normal(size=100),
            "signal": np.r_[rng.normal(0, 1, 50), rng.normal(5, 1, 50)],
            "empty": np.nan,
            "text": ["u", "v"] * 50,
        }
    )
    with pytest.warns(NoCutPointWarning) as caught:
        mdl = MDLDiscretizer().fit(X, y)
    assert len(caught) == 1 and caught[0].message.columns == ["noise", "empty"]
    assert "'noise', 'empty'" in str(caught[0].message)
    assert [len(c) for c in mdl.cut_points_[:3]] == [0, 1, 0]
    assert mdl.transform(X)["empty"].isna().all()
    with pytest.warns(NoCutPointWarning, match=r"\[0\]"):  # an array: columns by position
        MDLDiscretizer().fit(X[["noise", "signal"]].to_numpy(), y)


def _odd(values, dtype):
    """``values`` (floats, NaN missing) as a column of an odd dtype."""
    import pyarrow as pa

    cells = [None if np.isnan(v) else v for v in values]
    if dtype == "Int64":
        return pd.array([None if c is None else int(c) for c in cells], dtype="Int64")
    if dtype == "Float64":
        return pd.array(cells, dtype="Float64")
    if dtype == "arrow":
        return pd.Series(cells, dtype=pd.ArrowDtype(pa.float64()))
    if dtype == "object":
        return pd.Series([pd.NA if c is None else c for c in cells], dtype=object)
    from decimal import Decimal

    return pd.Series([None if c is None else Decimal(str(c)) for c in cells], dtype=object)


@pytest.mark.parametrize("dtype", ["Int64", "Float64", "arrow", "object", "decimal"])
@pytest.mark.parametrize("missing", [False, True])
def test_odd_numeric_dtypes_give_the_float_answer(dtype, missing):
    y = np.repeat([0, 1, 2], 12)
    values = np.r_[np.arange(12), np.arange(12) + 20, np.arange(12) + 40].astype(float)
    if missing:
        values[[3, 20]] = np.nan
    plain = pd.DataFrame({"x": values, "s": ["u", "v"] * 18})
    odd = pd.DataFrame({"x": _odd(values, dtype), "s": ["u", "v"] * 18})
    expected = MDLDiscretizer().fit(plain, y)
    model = MDLDiscretizer().fit(odd, y)
    np.testing.assert_array_equal(model.cut_points_[0], expected.cut_points_[0])
    assert model.cut_points_[0].tolist() == [15.5, 35.5]
    got, want = model.transform(odd)["x"], expected.transform(plain)["x"]
    assert got.isna().tolist() == want.isna().tolist() == list(np.isnan(values))
    assert got.dropna().astype(int).tolist() == want.dropna().astype(int).tolist()


def test_odd_cells_get_a_clear_error_naming_the_column():
    y = [0, 1] * 10
    with pytest.raises(ValueError, match="Column 'f' holds numbers and other values .*'x'"):
        MDLDiscretizer().fit(pd.DataFrame({"f": [0.1, 0.2, "x", 0.4] * 5}), y)
    for X in (
        pd.DataFrame({"g": np.r_[np.arange(19.0), np.inf]}),
        np.r_[np.arange(19.0), -np.inf][:, None],
    ):
        with pytest.raises(ValueError, match="Column ('g'|0) has infinite values .first at row 19"):
            MDLDiscretizer().fit(X, y)
    with pytest.raises(ValueError, match="not numbers"):
        MDLDiscretizer().fit(np.array([["a"]] * 20), y)
    # infinities beyond the training range fall in the end bins of a DataFrame
    frame = pd.DataFrame({"g": np.r_[np.arange(10.0), np.arange(10.0) + 20], "s": "u"})
    fitted = MDLDiscretizer().fit(frame, np.repeat([0, 1], 10))
    extreme = pd.DataFrame({"g": [-np.inf, np.inf, np.nan], "s": "u"})
    assert fitted.transform(extreme)["g"].tolist() == [0, 1, pd.NA]
