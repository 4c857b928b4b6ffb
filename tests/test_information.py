import numpy as np
import pandas as pd
import pytest
from _reference import slow_cmi

from bnclassify import TAN, conditional_mutual_information, mutual_information_with_class
from bnclassify.datasets import (
    load_car,
    load_p450,
    load_vote,
    make_clinic_table,
    make_credit_table,
)
from bnclassify.information import pairwise_information
from bnclassify.stats import pairwise_counts


@pytest.mark.parametrize("loader", [load_p450, load_vote, load_car])
def test_cmi_equals_slow_reference(loader):
    X, y = loader(return_X_y=True)
    got = conditional_mutual_information(X, y)
    expected = slow_cmi(X, y)
    np.testing.assert_allclose(got.to_numpy(), expected.to_numpy(), rtol=1e-10, atol=1e-14)
    assert list(got.index) == list(X.columns) == list(got.columns)


def test_cmi_is_symmetric_nonnegative_with_zero_diagonal():
    X, y = load_vote(return_X_y=True)
    cmi = conditional_mutual_information(X, y).to_numpy()
    np.testing.assert_array_equal(cmi, cmi.T)
    assert (cmi >= 0).all() and (np.diag(cmi) == 0).all()


def test_cmi_of_a_copy_is_the_conditional_entropy():
    rng = np.random.default_rng(0)
    a = rng.integers(0, 3, 500)
    y = rng.integers(0, 2, 500)
    X = pd.DataFrame({"a": a, "b": a})
    cmi = conditional_mutual_information(X, y).loc["a", "b"]
    h = 0.0
    for c in (0, 1):
        p_c = (y == c).mean()
        p = np.bincount(a[y == c], minlength=3) / (y == c).sum()
        h -= p_c * np.sum(p[p > 0] * np.log(p[p > 0]))
    assert cmi == pytest.approx(h, rel=1e-12)


def test_cmi_of_independent_features_given_class_is_near_zero():
    rng = np.random.default_rng(1)
    X = pd.DataFrame(rng.integers(0, 3, (20000, 2)), columns=["a", "b"])
    y = rng.integers(0, 2, 20000)
    assert conditional_mutual_information(X, y).loc["a", "b"] < 1e-3


def test_mutual_information_with_class_matches_sklearn():
    from sklearn.metrics import mutual_info_score

    X, y = load_p450(return_X_y=True)
    mi = mutual_information_with_class(X, y)
    for name in X.columns:
        assert mi[name] == pytest.approx(mutual_info_score(X[name], y), rel=1e-10)


@pytest.mark.parametrize(
    "make",
    [
        lambda: load_vote(return_X_y=True),  # categorical, with missing cells
        lambda: load_car(return_X_y=True),
        lambda: _split(make_credit_table(), "credit_risk"),  # string, integer, log-normal
        lambda: _split(make_clinic_table(), "diagnosis"),  # categorical and Gaussian
    ],
    ids=["vote", "car", "credit", "clinic"],
)
def test_default_tan_weights_are_the_conditional_mutual_information(make):
    X, y = make()
    weights = TAN().fit(X, y).weights_
    cmi = conditional_mutual_information(X, y)
    pd.testing.assert_frame_equal(weights, cmi, check_exact=True)
    # the AIC spanning tree is a named option whose weights are other numbers
    assert not np.allclose(TAN(criterion="aic_tree").fit(X, y).weights_, cmi)


def _split(frame, target):
    return frame.drop(columns=target), frame[target]


def test_columns_missing_as_often_in_different_rows_are_read_on_the_rows_observing_both():
    # equal per-class totals of observed cells used to take the every-row-observed shortcut:
    # here x0 misses row 0 and x1 row 2, and on the 4 rows observing both x1 copies x0
    # (one (0, 0), three (1, 1)): I = H(1/4) nats, not what the shortcut's marginals give
    codes = np.array([[-1, 0], [1, 1], [0, -1], [1, 1], [0, 0], [1, 1]])
    y = np.zeros(6, dtype=int)
    cmi, rows = pairwise_information(pairwise_counts(codes, y, np.array([2, 2]), 1))
    entropy = -(0.25 * np.log(0.25) + 0.75 * np.log(0.75))
    assert cmi[0, 1] == pytest.approx(entropy, rel=1e-12)
    assert rows[0, 1] == 4
