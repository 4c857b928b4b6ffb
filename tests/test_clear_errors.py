"""Bad input gets one clear error naming the parameter, column or value (issue 14, item 7)."""

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from bnclassify import KDB, TAN, EnsembleTAN, NaiveBayes
from bnclassify.datasets import load_p450
from bnclassify.metrics import conditional_log_likelihood


@pytest.fixture(scope="module")
def p450():
    X, y = load_p450(return_X_y=True)
    return X.astype(int), y


@pytest.mark.parametrize("labels", [list(range(8)), [(f"c{j}", j) for j in range(8)]])
def test_integer_and_tuple_column_labels_align_by_label(p450, labels):
    X, y = p450
    X = X.set_axis(labels, axis=1)
    model = NaiveBayes().fit(X, y)
    reordered = X[labels[::-1]]
    np.testing.assert_array_equal(model.predict_proba(reordered), model.predict_proba(X))
    two = NaiveBayes().fit(X[labels[:2]], y)
    swapped = X[[labels[1], labels[0]]]
    np.testing.assert_array_equal(two.predict(swapped), two.predict(X[labels[:2]]))


def test_datetime_column_is_not_read_as_nanoseconds():
    X = pd.DataFrame({"when": pd.date_range("2020-01-01", periods=10)})
    with pytest.raises(TypeError, match="'when'.*nanoseconds"):
        NaiveBayes(distributions={"when": "gaussian"}).fit(X, [0, 1] * 5)


def test_nullable_integer_na_is_missing_not_unseen(p450):
    X, y = p450
    model = NaiveBayes(handle_unknown="error").fit(X.astype("Int64"), y)
    with_na = X.iloc[:3].astype("Int64")
    with_na.iloc[0, 2] = pd.NA
    with_nan = X.iloc[:3].astype(float)
    with_nan.iloc[0, 2] = np.nan
    np.testing.assert_allclose(model.predict_proba(with_na), model.predict_proba(with_nan))
    trained_with_na = X.astype("Int64")
    trained_with_na.iloc[0, 1] = pd.NA
    assert NaiveBayes().fit(trained_with_na, y).feature_kinds_[1] == "categorical"


def test_alpha_may_be_any_real_number(p450):
    X, y = p450
    a = NaiveBayes(alpha=Fraction(1, 2)).fit(X, y).predict_proba(X)
    np.testing.assert_allclose(a, NaiveBayes(alpha=0.5).fit(X, y).predict_proba(X))


def test_list_cells_name_the_column():
    X = pd.DataFrame({"ok": ["a", "b"] * 5, "bad": [[1], {"k": 2}] * 5})
    with pytest.raises(TypeError, match="Column 'bad' holds list cells"):
        NaiveBayes().fit(X, [0, 1] * 5)


@pytest.mark.parametrize("y", [["a", 1] * 5, pd.Series(["a", 1] * 5)])
def test_target_mixing_strings_and_numbers(p450, y):
    with pytest.raises(TypeError, match="y mixes strings and numbers"):
        NaiveBayes().fit(p450[0].iloc[:10], y)


def test_conditional_log_likelihood_checks():
    with pytest.raises(ValueError, match="duplicate label"):
        conditional_log_likelihood([0, 1], [[0.5, 0.5]] * 2, classes=[0, 0])
    with pytest.raises(ValueError, match="sums to 0.1"):
        conditional_log_likelihood([0, 1], [[0.05, 0.05]] * 2)


def test_kdb_order_must_be_a_list(p450):
    with pytest.raises(TypeError, match="order must be a list"):
        KDB(order=5).fit(*p450)


def test_root_accepts_numpy_integers(p450):
    X, y = p450
    a = TAN(root=np.int64(0)).fit(X, y)
    assert a.structure_.edges == TAN(root=0).fit(X, y).structure_.edges


@pytest.mark.parametrize(
    "params, match",
    [
        ({"n_estimators": 10**7}, "n_estimators=10000000 is more than"),
        ({"n_jobs": 1.5}, "n_jobs must be"),
        ({"n_jobs": "2"}, "n_jobs must be"),
        ({"n_jobs": True}, "n_jobs must be"),
        ({"random_state": "x"}, "random_state must be"),
    ],
)
def test_ensemble_parameters_refused_up_front(p450, params, match):
    with pytest.raises(ValueError, match=match):
        EnsembleTAN(**params).fit(*p450)


@pytest.mark.parametrize("value", [float("nan"), "a", True])
def test_bernoulli_binarize_is_checked(value):
    from bnclassify.distributions import Bernoulli

    with pytest.raises(ValueError, match="binarize must be a finite number"):
        NaiveBayes(distributions=Bernoulli(binarize=value)).fit(np.ones((10, 3)), [0, 1] * 5)


@pytest.mark.parametrize(
    "matrix, error, match",
    [
        ([[1, 2], [3]], ValueError, "ragged"),
        (np.ones((8, 8)) * 1j, TypeError, "complex"),
    ],
)
def test_bad_contact_matrices(p450, matrix, error, match):
    from bnclassify import SimplerTAN

    with pytest.raises(error, match=match):
        SimplerTAN(contact_matrix=matrix).fit(*p450)


def test_evaluate_cv_must_be_a_number_or_splitter(p450):
    from bnclassify.metrics import evaluate

    with pytest.raises(TypeError, match="cv must be None, a number of folds"):
        evaluate({"nb": NaiveBayes()}, *p450, cv="5")


def test_plot_structure_root_must_be_a_feature(p450):
    from bnclassify.plotting import plot_structure

    with pytest.raises(ValueError, match="root='zz' is not a feature node"):
        plot_structure(TAN().fit(*p450), root="zz")


@pytest.mark.parametrize("n_jobs", [1.5, "2", True, 0])
def test_evaluate_n_jobs_is_checked(p450, n_jobs):
    from bnclassify.metrics import evaluate

    with pytest.raises(ValueError, match="n_jobs must be None or a non-zero integer"):
        evaluate({"nb": NaiveBayes()}, *p450, cv=3, n_jobs=n_jobs, progress=False)


def test_mean_cll_of_no_rows_is_an_error():
    from bnclassify.metrics import conditional_log_likelihood

    with pytest.raises(ValueError, match="no rows"):
        conditional_log_likelihood([], np.zeros((0, 2)), classes=[0, 1], reduce="mean")
    assert conditional_log_likelihood([], np.zeros((0, 2)), classes=[0, 1]) == 0.0


@pytest.mark.parametrize("prior", ["ab", [0.5, "x"]])
def test_class_prior_must_hold_numbers(prior):
    with pytest.raises(ValueError, match="class_prior must hold real numbers"):
        NaiveBayes.from_parameters(prior, [[0, 1], [1, 2]], [[1, 1], [1, 1]])


def _gaussian_two_features():
    # non-integer values: twenty distinct integers 0..19 read as category codes
    X = pd.DataFrame({"a": np.arange(20.0) + 0.25, "b": np.arange(20.0) ** 0.5})
    return NaiveBayes().fit(X, [0, 1] * 10), X


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"n_points": 0}, "n_points must be an integer between 2"),
        ({"n_points": 2.5}, "n_points must be an integer"),
        ({"xlim": (1, 0)}, "xlim must be finite with low < high"),
        ({"xlim": "ab"}, "xlim must be a pair of numbers"),
    ],
)
def test_density_plot_arguments_are_checked(kwargs, match):
    from bnclassify.plotting import plot_class_densities

    model, _ = _gaussian_two_features()
    with pytest.raises(ValueError, match=match):
        plot_class_densities(model, "a", **kwargs)


def test_cpt_plot_n_points_is_checked(p450):
    from bnclassify.plotting import plot_cpt

    with pytest.raises(ValueError, match="n_points must be an integer between 2"):
        plot_cpt(TAN().fit(*p450), "block1", n_points=0)


def test_decision_boundary_arguments_are_checked():
    from bnclassify.plotting import plot_decision_boundary

    model, X = _gaussian_two_features()
    with pytest.raises(ValueError, match="resolution must be an integer between 2 and 2000"):
        plot_decision_boundary(model, X, resolution=10**5)  # would allocate 74.5 GiB
    with pytest.raises(ValueError, match="Column 'a' of X has no value"):
        plot_decision_boundary(model, X.assign(a=np.nan))


def test_plot_structure_refuses_a_cyclic_graph():
    import networkx as nx

    from bnclassify.plotting import plot_structure

    with pytest.raises(ValueError, match="cycle \\(a -> b -> a\\)"):
        plot_structure(nx.DiGraph([("a", "b"), ("b", "a")]))


@pytest.mark.parametrize(
    "matrix, match",
    [
        (np.zeros((0, 0)), "square and non-empty"),
        (np.array([["a", "b"], ["c", "d"]]), "must hold real numbers"),
        (np.ones((2, 3)), "square and non-empty"),
    ],
)
def test_plot_weights_refuses_bad_matrices(matrix, match):
    from bnclassify.plotting import plot_weights

    with pytest.raises(ValueError, match=match):
        plot_weights(matrix)


def test_contact_matrix_of_the_wrong_size_is_named(p450):
    from bnclassify import SimplerTAN

    with pytest.raises(ValueError, match="contact_matrix is 3 x 3 but the data has 8 features"):
        SimplerTAN(contact_matrix=np.ones((3, 3))).fit(*p450)


def test_an_infinite_class_label_is_refused_by_name():
    # scikit-learn's label check would cast inf to int first, with numpy's RuntimeWarning
    X = pd.DataFrame({"a": ["u", "v"] * 5})
    y = np.array([0.0, 1.0] * 5)
    y[3] = np.inf
    with pytest.raises(ValueError, match=r"y has 1 infinite value\(s\) \(first at row 3\)"):
        NaiveBayes().fit(X, y)


def test_an_infinite_gaussian_cell_is_refused_by_name_without_a_numpy_warning():
    X = pd.DataFrame({"a": [0.5, 1.5, 2.5, 3.5] * 3, "b": [1.0, 2.0, 3.0, 4.0] * 3})
    X.loc[1, "a"] = np.inf
    with pytest.raises(ValueError, match="infinite"):  # a RuntimeWarning would fail first
        NaiveBayes().fit(X, ["u", "u", "v", "v"] * 3)
