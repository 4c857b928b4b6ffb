"""NaiveBayes equals scikit-learn's CategoricalNB given the same (smoothed) class prior."""

import numpy as np
import pytest
from sklearn.naive_bayes import CategoricalNB
from sklearn.preprocessing import OrdinalEncoder

from bnclassify import NaiveBayes
from bnclassify.datasets import load_car, load_nursery


@pytest.mark.parametrize("loader", [load_car, load_nursery])
@pytest.mark.parametrize("alpha", [1.0, 0.3])
def test_naive_bayes_equals_categorical_nb(loader, alpha):
    X, y = loader(return_X_y=True)
    ours = NaiveBayes(alpha=alpha).fit(X, y)
    counts = y.value_counts().reindex(ours.classes_).to_numpy()
    prior = (counts + alpha) / (counts.sum() + alpha * len(counts))
    codes = OrdinalEncoder().fit_transform(X)
    theirs = CategoricalNB(alpha=alpha, class_prior=prior).fit(codes, y)
    assert list(theirs.classes_) == list(ours.classes_)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(codes), atol=1e-12)
    np.testing.assert_allclose(
        ours.predict_log_proba(X), theirs.predict_log_proba(codes), atol=1e-10
    )
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(codes))
