"""Extreme values through every estimator, explain and the metrics, warnings as errors (issue 27,
item 3).

Values near the ends of the float range (1e308, 1e-308, subnormals), columns at very different
magnitudes, huge integers, constant columns, classes of one row, and sample weights near 0 and
near 1e300 once let numpy's RuntimeWarnings (overflow, invalid value, divide by zero) leak from
casts, squares, exponentials and logs. Every call here runs with warnings as errors: it returns
finite probabilities that sum to 1, or refuses with one clear ``ValueError``/``TypeError``.
"""

import inspect
import os
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bnclassify as bnc
from bnclassify.exceptions import UnseenCategoryWarning, ZeroVarianceWarning
from bnclassify.explain import explain
from bnclassify.metrics import conditional_log_likelihood, corrected_resampled_ttest

SETTINGS = settings(
    max_examples=int(os.environ.get("BNC_EXTREME_EXAMPLES", 12)),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
SPECIAL = [1e308, -1e308, 1.7976931348623157e308, 1e-308, 5e-324, -5e-324, 0.0, 1e300, 1e-300]
INT64 = np.iinfo(np.int64)


def _contacts(columns):
    return pd.DataFrame(np.ones((len(columns), len(columns))), index=columns, columns=columns)


ESTIMATORS = {
    "NaiveBayes": lambda X: bnc.NaiveBayes(),
    "TAN": lambda X: bnc.TAN(),
    "SimplerTAN": lambda X: bnc.SimplerTAN(_contacts(X.columns)),
    "KDB": lambda X: bnc.KDB(k=2),
    "SPODE": lambda X: bnc.SPODE(),
    "AODE": lambda X: bnc.AODE(),
    "BMATAN": lambda X: bnc.BMATAN(),
    "EnsembleTAN": lambda X: bnc.EnsembleTAN(),
    "TANHC": lambda X: bnc.TANHC(cv=2, random_state=0),
    "KDBHC": lambda X: bnc.KDBHC(cv=2, random_state=0),
    "HNB": lambda X: bnc.HNB(),
    "A2DE": lambda X: bnc.AnDE(n=2),
}


@st.composite
def extreme_tables(draw):
    """``(X, y, sample_weight or None)``: a categorical column and 1-2 extreme numeric ones."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n = draw(st.integers(6, 24))
    kind = draw(st.sampled_from(["ends", "magnitudes", "constant", "integers", "one-row classes"]))
    y = np.resize(np.array(["p", "q", "r"][: draw(st.integers(2, 3))]), n)
    rng.shuffle(y)
    columns = {"c": rng.choice(list("ab"), n)}
    for j in range(draw(st.integers(1, 2))):
        if kind == "ends":
            x = rng.choice(SPECIAL, n) * rng.uniform(0.5, 1.0, n)
        elif kind == "magnitudes":
            x = rng.normal(size=n) * 10.0 ** rng.choice([-300, -150, 0, 150, 300]) + 10.0 ** (
                rng.choice([-300, 0, 300])
            )
        elif kind == "constant":
            x = np.full(n, rng.choice(SPECIAL))
        elif kind == "integers":
            x = rng.choice([INT64.max, INT64.min, 0, 2**53 + 1], n).astype(np.int64)
        else:
            x = rng.normal(size=n)
            y = np.array(["p"] * (n - 2) + ["q", "r"])
        columns[f"g{j}"] = x
    weights = None
    if draw(st.booleans()):
        weights = rng.choice([5e-324, 1e-300, 1e-30, 1.0, 1e30, 1e300], n) * rng.uniform(0.5, 1, n)
    return pd.DataFrame(columns), y, weights


def _strict(call):
    """``call()`` with every warning an error but the library's own notes, or None when it
    refuses clearly."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", UnseenCategoryWarning)
        # a class whose values are equal (a constant column, subnormals rounding alike) borrows
        # the pooled spread: the library's note, not a leak
        warnings.simplefilter("ignore", ZeroVarianceWarning)
        warnings.filterwarnings("ignore", message="(AODE|SPODE) found no categorical")
        warnings.filterwarnings("ignore", message="The least populated class")
        try:
            return call()
        except (ValueError, TypeError) as error:
            assert not isinstance(error, Warning)
            return None


@pytest.mark.parametrize("name", ESTIMATORS)
@SETTINGS
@given(table=extreme_tables())
def test_extreme_values_leak_no_runtime_warning(name, table):
    X, y, weights = table
    model = ESTIMATORS[name](X)
    if "sample_weight" not in inspect.signature(model.fit).parameters:
        weights = None
    fitted = _strict(lambda: model.fit(X, y, sample_weight=weights))
    if fitted is None:
        return
    proba = _strict(lambda: model.predict_proba(X))
    if proba is None:
        return
    assert np.isfinite(proba).all()
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    _strict(lambda: conditional_log_likelihood(y, proba, classes=model.classes_))
    _strict(lambda: explain(model, X.iloc[:2], n_permutations=8, random_state=0))


@SETTINGS
@given(
    st.lists(st.sampled_from(SPECIAL + [1.0, 0.5]), min_size=2, max_size=6),
    st.sampled_from([0.0, 1e-300, 1.0, 1e300]),
)
def test_metrics_at_the_ends_of_the_float_range(scores, shift):
    a = np.array(scores)
    result = _strict(lambda: corrected_resampled_ttest(a, a * 0.5 + shift, n_train=9, n_test=1))
    assert result is None or np.isnan(result.statistic) or -np.inf <= result.statistic <= np.inf
    proba = np.array([[1.0, 0.0], [5e-324, 1.0], [1e-300, 1.0 - 1e-300]])
    cll = _strict(lambda: conditional_log_likelihood(["p", "p", "q"], proba, classes=["p", "q"]))
    assert cll == pytest.approx(np.log2(5e-324))  # a subnormal probability is still a number


def test_centring_a_column_spanning_the_float_range_does_not_overflow():
    # its sum overflowed (a numpy RuntimeWarning reached the user, found by the campaign)
    from bnclassify.data import centred_columns

    x = np.linspace(-1, 1, 21)[:, None] * 1.7e308
    centred = centred_columns(x, np.ones_like(x, dtype=bool))
    np.testing.assert_allclose(centred, x, rtol=0, atol=1e-15 * 1.7e308)  # the mean is 0
