"""Bad input ends in a clear error naming the column or value; supported inputs behave."""

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import GridSearchCV, KFold, cross_validate
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer

from bnclassify import TAN, NaiveBayes, SimplerTAN
from bnclassify.datasets import load_p450, load_vote
from bnclassify.exceptions import UnobservedColumnWarning


@pytest.fixture(scope="module")
def p450():
    return load_p450()


@pytest.mark.parametrize(
    ("matrix", "message"),
    [
        (np.ones((8, 7)), "square"),
        (np.ones((7, 7)), "7 x 7 but the data has 8 features"),
        (np.triu(np.ones((8, 8))), "symmetric"),
        (-np.ones((8, 8)), "non-negative"),
        (np.full((8, 8), np.nan), "non-finite"),
        (None, "needs a contact_matrix"),
    ],
)
def test_bad_contact_matrix(p450, matrix, message):
    with pytest.raises(ValueError, match=message):
        SimplerTAN(matrix).fit(p450.data, p450.target)


def test_contact_labels_must_match_columns(p450):
    renamed = p450.contact_matrix.rename(index={"block3": "blockX"}, columns={"block3": "blockX"})
    with pytest.raises(ValueError, match=r"missing \['block3'\], unexpected \['blockX'\]"):
        SimplerTAN(renamed).fit(p450.data, p450.target)


def test_labelled_contact_matrix_is_reordered_to_the_columns(p450):
    shuffled = p450.contact_matrix.iloc[::-1, ::-1]
    a = SimplerTAN(p450.contact_matrix).fit(p450.data, p450.target)
    b = SimplerTAN(shuffled).fit(p450.data, p450.target)
    assert set(a.structure_.edges()) == set(b.structure_.edges())
    pd.testing.assert_frame_equal(a.weights_, b.weights_)
    c = SimplerTAN(p450.contact_matrix.to_numpy()).fit(p450.data, p450.target)
    assert set(a.structure_.edges()) == set(c.structure_.edges())


@pytest.mark.parametrize("model", [NaiveBayes(), TAN()])
def test_single_class_empty_and_length_mismatch(model):
    X = pd.DataFrame({"a": ["x", "y", "x"], "b": ["u", "u", "v"]})
    with pytest.raises(ValueError, match="only 1 class"):
        clone(model).fit(X, ["c", "c", "c"])
    with pytest.raises(ValueError, match="0 sample"):
        clone(model).fit(X.iloc[:0], [])
    with pytest.raises(ValueError, match="X has 3 rows but y has 2"):
        clone(model).fit(X, ["c", "d"])
    with pytest.raises(ValueError, match="missing value"):
        clone(model).fit(X, ["c", None, "d"])
    with pytest.warns(UnobservedColumnWarning, match="'b' have no observed value"):
        clone(model).fit(X.assign(b=np.nan), ["c", "d", "c"])  # left out, not refused


def test_predict_with_other_columns(p450):
    model = TAN().fit(p450.data, p450.target)
    with pytest.raises(ValueError, match=r"missing \['block8'\], unexpected \['extra'\]"):
        model.predict(p450.data.rename(columns={"block8": "extra"}))
    with pytest.raises(ValueError, match="X has 7 features, but TAN is expecting 8"):
        model.predict(p450.data.iloc[:, :7].to_numpy())
    # the same columns in another order are aligned by name
    reordered = p450.data[p450.data.columns[::-1]]
    np.testing.assert_array_equal(model.predict_proba(reordered), model.predict_proba(p450.data))


def test_unknown_category_error_names_column_and_value(p450):
    model = TAN(handle_unknown="error").fit(p450.data, p450.target)
    row = p450.data.iloc[[0]].astype(str)
    row["block5"] = "7"
    with pytest.raises(ValueError, match=r"Column 'block5' has value\(s\) \['7'\] not seen"):
        model.predict(row)
    marginal = model.set_params(handle_unknown="marginalize").predict_proba(row)
    missing = row.copy()
    missing["block5"] = np.nan
    np.testing.assert_allclose(marginal, model.predict_proba(missing), atol=0)


@pytest.mark.parametrize("name", ["NaiveBayes", "TAN", "KDB", "AODE", "EnsembleTAN"])
def test_default_sums_out_unseen_categories_and_warns_once(p450, name):
    import warnings

    import bnclassify
    from bnclassify.exceptions import UnseenCategoryWarning

    model = getattr(bnclassify, name)().fit(p450.data, p450.target)
    rows = p450.data.iloc[:3].astype(str)
    rows.iloc[0, 4] = "7"
    rows.iloc[1, 4] = "8"
    rows.iloc[2, 0] = "9"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        proba = model.predict_proba(rows)
    assert [w.category for w in caught] == [UnseenCategoryWarning]
    assert caught[0].message.counts == {"block1": 1, "block5": 2}
    assert caught[0].filename == __file__  # points at the caller
    missing = rows.copy()
    missing.iloc[[0, 1], 4] = np.nan
    missing.iloc[2, 0] = np.nan
    quiet = model.set_params(handle_unknown="marginalize")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_allclose(proba, quiet.predict_proba(rows), atol=0)
        np.testing.assert_allclose(proba, quiet.predict_proba(missing), atol=1e-12)


def test_declared_categories_get_smoothed_probabilities():
    X = pd.DataFrame({"a": pd.Categorical(["x", "x", "y"], categories=["x", "y", "z"])})
    model = NaiveBayes().fit(X, ["c", "d", "c"])
    assert list(model.categories_[0]) == ["x", "y", "z"]
    cpd = np.exp(model.compiled_.factors[0].log_table_)
    np.testing.assert_allclose(cpd[0], [2 / 5, 2 / 5, 1 / 5])  # class c: x=1, y=1, z=0 (+1 each)
    proba = model.predict_proba(pd.DataFrame({"a": ["z"]}))
    assert np.isfinite(proba).all()


@pytest.mark.parametrize("alpha", [-1, "1", np.nan, True])
def test_bad_alpha(p450, alpha):
    with pytest.raises((ValueError, TypeError), match="alpha"):
        NaiveBayes(alpha=alpha).fit(p450.data, p450.target)


@pytest.mark.parametrize("root", ["block9", 8, 1.5])
def test_bad_root(p450, root):
    with pytest.raises(ValueError, match="root"):
        TAN(root=root).fit(p450.data, p450.target)


def test_root_by_name_or_position_orients_the_same_tree(p450):
    by_name = TAN(root="block7").fit(p450.data, p450.target)
    by_position = TAN(root=6).fit(p450.data, p450.target)
    assert set(by_name.structure_.edges()) == set(by_position.structure_.edges())
    assert by_name.structure_.in_degree("block7") == 1  # only the class


def test_bad_handle_unknown(p450):
    with pytest.raises(ValueError, match="handle_unknown"):
        NaiveBayes(handle_unknown="ignore").fit(p450.data, p450.target)


def test_not_fitted():
    with pytest.raises(NotFittedError):
        TAN().predict_proba(pd.DataFrame({"a": ["x"]}))
    with pytest.raises(NotFittedError):
        TAN().network_  # noqa: B018


def test_fitted_attributes(p450):
    model = SimplerTAN(p450.contact_matrix).fit(p450.data, p450.target)
    assert list(model.classes_) == ["0", "1"]
    assert list(model.feature_names_in_) == p450.feature_names and model.n_features_in_ == 8
    assert [list(c) for c in model.categories_] == [["1", "2", "3"]] * 8
    assert set(model.structure_.nodes) == {*p450.feature_names, "functional"}
    assert list(model.weights_.index) == p450.feature_names
    assert set(model.fit_times_) == {"weights", "structure", "parameters"}
    assert set(model.network_.nodes()) == set(model.structure_.nodes)
    assert model.network_.get_cpds("block1").state_names["block1"] == ["1", "2", "3"]


def test_numpy_input_gets_default_names():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, (100, 4))
    y = rng.integers(0, 2, 100)
    model = TAN().fit(X, y)
    assert not hasattr(model, "feature_names_in_")
    assert model.feature_names_ == ["x0", "x1", "x2", "x3"]
    assert model.network_.get_cpds("x0").state_names["x0"] == [0, 1, 2]


def test_pipeline_cross_validate_and_grid_search(p450):
    cv = KFold(5, shuffle=True, random_state=0)
    pipe = make_pipeline(FunctionTransformer(lambda X: X), SimplerTAN(p450.contact_matrix))
    scores = cross_validate(pipe, p450.data, p450.target, cv=cv, scoring="neg_log_loss")
    assert np.isfinite(scores["test_score"]).all()
    search = GridSearchCV(TAN(), {"alpha": [0.5, 1.0], "root": ["block1", "block7"]}, cv=cv)
    search.fit(p450.data, p450.target)
    assert search.best_params_["alpha"] in (0.5, 1.0)


def test_vote_training_rows_with_missing_values_count_where_observed():
    X, y = load_vote(return_X_y=True)
    model = NaiveBayes(alpha=0).fit(X, y)
    column = "water_project_cost_sharing"
    observed = X[column].notna()
    dem = (y == "democrat") & observed
    expected = (X.loc[dem, column] == "y").mean()
    k = list(X.columns).index(column)
    assert np.exp(model.compiled_.factors[k].log_table_[0, 1]) == pytest.approx(expected)


def test_categorical_target_keeps_its_declared_classes():
    # nursery's "recommend" has 2 rows: a training fold without it must still give those
    # test rows a (smoothed) probability, as R's factor levels do
    from bnclassify.datasets import load_nursery

    X, y = load_nursery(return_X_y=True)
    train = (y != "recommend").to_numpy()
    model = NaiveBayes().fit(X[train], y[train])
    assert list(model.classes_) == list(y.cat.categories)
    proba = model.predict_proba(X[~train])
    k = list(model.classes_).index("recommend")
    assert (proba[:, k] > 0).all() and np.isfinite(np.log(proba)).all()
    plain = NaiveBayes().fit(X[train], y[train].astype(str))
    assert "recommend" not in plain.classes_
