"""Float columns holding integers (issue 32 item 3): a float column is a measurement,
binned by the class, with or without a missing cell (``read_csv``'s integer column with
gaps); integer dtypes keep the integer rule."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.model_selection import StratifiedKFold

import bnclassify as bn
from bnclassify.data import default_kind


@settings(max_examples=60, deadline=None)
@given(
    values=st.lists(st.integers(-3, 16), min_size=4, max_size=40),
    gaps=st.lists(st.integers(0, 39), max_size=3),
    numbers=st.sampled_from(["binned", "density"]),
)
def test_a_float_column_of_small_integers_is_a_measurement(values, gaps, numbers):
    column = pd.Series(values, dtype=float)
    gaps = [i for i in gaps if i < len(values) - 1]  # one cell stays observed
    column.iloc[gaps] = np.nan
    classes = np.resize(["a", "b"], len(values))
    kind = default_kind(column, classes=classes, numbers=numbers)
    assert kind == "binned" if numbers == "binned" else kind in ("gaussian", "lognormal")
    # the same integers in an integer dtype (read_csv's dtype={"code": "Int64"}): categories
    assert default_kind(column.astype("Int64"), classes=classes, numbers=numbers) == "categorical"


def _arrhythmia_like(seed=0):
    """arrhythmia's case, small: a rare class (2 training rows per fold) among many float
    columns of small integers that say nothing of the class (skewed counts, as most of
    arrhythmia's 51 such columns), and one informative measurement."""
    rng = np.random.default_rng(seed)
    y = np.array(["normal"] * 60 + ["rare"] * 4 + ["other"] * 20)
    n = len(y)
    counts = np.minimum(rng.geometric(0.5, (n, 120)) - 1, 19).astype(float)
    X = pd.DataFrame(counts, columns=[f"lead{j}" for j in range(120)])
    X["qrs"] = np.where(y == "normal", 80.0, 100.0) + rng.normal(0, 5, n).round()
    return X, y


@pytest.mark.parametrize("model", [bn.NaiveBayes, bn.TAN], ids=["nb", "tan"])
def test_float_integer_noise_columns_do_not_collapse_a_rare_class(model):
    X, y = _arrhythmia_like()
    lowest = 1.0
    for train, test in StratifiedKFold(2, shuffle=True, random_state=0).split(X, y):
        fitted = model().fit(X.iloc[train], y[train])
        assert set(fitted.feature_kinds_) == {"binned"}
        proba = fitted.predict_proba(X.iloc[test])
        truth = np.searchsorted(fitted.classes_, y[test])
        lowest = min(lowest, proba[np.arange(len(test)), truth].min())
    # read as categories (the rule before: any integer-valued float column), each count
    # column put the rare class's held-out rows near 1/20 against the common classes'
    # frequencies: the lowest true-class probability was about 1e-14 (NB) and 1e-13 (TAN)
    assert lowest > 1e-3
    # a gap changes nothing (read_csv's integer column with a missing cell is float64)
    gappy = X.copy()
    gappy.iloc[0, :-1] = np.nan
    assert set(model().fit(gappy, y).feature_kinds_) == {"binned"}
    # as integers they are categories, as before
    kinds = model().fit(X.astype({c: int for c in X.columns[:-1]}), y).feature_kinds_
    assert kinds[:-1] == ["categorical"] * 120 and kinds[-1] == "binned"
