"""Issue 31 item 4: a Gaussian column constant within a class (UCI anneal's ``len``, 0 in all
8 rows of class 1) must not send every row holding that value to the class."""

import numpy as np
import pandas as pd
import pytest

from bnclassify import TAN, NaiveBayes
from bnclassify.exceptions import ZeroVarianceWarning
from bnclassify.io import dump, load

# tests of the density nodes as the kinds rule chooses them (distributions="density"; the
# default bins continuous columns, tests/test_binned.py)
pytestmark = pytest.mark.usefixtures("numbers_as_densities")


def anneal_like(seed=0):
    """Class "1" (8 rows) has len 0; the other classes have a point mass at 0 and a long tail."""
    rng = np.random.default_rng(seed)
    sizes = {"3": 120, "2": 30, "5": 20, "1": 8}
    y = np.concatenate([[label] * n for label, n in sizes.items()])
    length = np.where(rng.random(len(y)) < 0.4, 0.0, rng.gamma(2.0, 800.0, len(y)).round())
    length[y == "1"] = 0.0
    shape = np.where(rng.random(len(y)) < 0.7, "coil", "sheet")
    X = pd.DataFrame({"len": length, "shape": shape, "width": rng.normal(600, 200, len(y))})
    order = rng.permutation(len(y))
    return X.iloc[order].reset_index(drop=True), pd.Series(y[order], name="class")


GAUSSIAN = {"len": "gaussian", "width": "gaussian"}


def test_a_constant_class_gets_the_pooled_spread_and_a_warning():
    X, y = anneal_like()
    with pytest.warns(ZeroVarianceWarning, match="column 'len' within class.es. \\['1'\\]") as got:
        model = NaiveBayes(distributions=GAUSSIAN).fit(X, y)
    assert len(got) == 1 and got[0].message.classes == {"len": ["1"]}
    node = model.distributions_["len"]
    one = list(model.classes_).index("1")
    assert node.constant_classes_ == (one,)
    # the pooled within-class variance: every class's ML variance weighted by its rows
    counts = y.value_counts().reindex(model.classes_).to_numpy()
    variances = X["len"].groupby(y).var(ddof=0).reindex(model.classes_).to_numpy()
    pooled = (counts * variances).sum() / counts.sum()
    np.testing.assert_allclose(node.var_[one], pooled + node.epsilon_, rtol=1e-12)
    others = np.arange(len(model.classes_)) != one
    np.testing.assert_allclose(node.var_[others], variances[others] + node.epsilon_, rtol=1e-12)
    # with a spike at 0, every row with len 0 went to class 1 (about 60 of 170 other rows)
    predicted = model.predict(X)
    assert (predicted == "1").sum() <= 8
    assert (predicted == y).mean() >= (y == "3").mean()


def test_the_borrowed_spread_survives_chunks_files_and_trees(tmp_path):
    X, y = anneal_like(1)
    with pytest.warns(ZeroVarianceWarning):
        fitted = NaiveBayes(distributions=GAUSSIAN).fit(X, y)
    chunked = NaiveBayes(distributions=GAUSSIAN)
    with pytest.warns(ZeroVarianceWarning):
        for rows in np.array_split(np.arange(len(X)), 3):
            chunked.partial_fit(X.iloc[rows], y.iloc[rows], classes=sorted(set(y)))
    np.testing.assert_allclose(
        chunked.distributions_["len"].var_, fitted.distributions_["len"].var_, rtol=1e-9
    )
    loaded = load(dump(fitted, tmp_path / "nb.bnc"))
    assert (
        loaded.distributions_["len"].constant_classes_
        == fitted.distributions_["len"].constant_classes_
    )
    np.testing.assert_array_equal(loaded.predict_proba(X), fitted.predict_proba(X))
    with pytest.warns(ZeroVarianceWarning):  # a tree: the class-level fit under its parents
        tan = TAN(distributions=GAUSSIAN).fit(X, y)
    assert (tan.predict(X) == "1").sum() <= 8


def test_a_column_constant_over_all_rows_keeps_the_floor_silently():
    X, y = anneal_like(2)
    X["len"] = 5.0
    model = NaiveBayes(distributions=GAUSSIAN).fit(X, y)  # no warning: filterwarnings=error
    node = model.distributions_["len"]
    assert node.constant_classes_ == () and np.allclose(node.var_, node.epsilon_)
