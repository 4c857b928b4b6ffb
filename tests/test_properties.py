"""Invariants of every core estimator, checked with hypothesis on random categorical tables."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bnclassify import TAN, NaiveBayes, SimplerTAN

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def tables(draw, missing=False):
    """A random categorical table with 2-5 features (2-4 states), 2-3 classes, 10-60 rows."""
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    n_rows, n_features = draw(st.integers(10, 60)), draw(st.integers(2, 5))
    cards = rng.integers(2, 5, n_features)
    n_classes = draw(st.integers(2, 3))
    y = rng.permutation(np.resize(np.arange(n_classes), n_rows))  # every class present
    X = pd.DataFrame(
        {
            f"f{j}": np.array(list("abcd"))[rng.integers(0, cards[j], n_rows)]
            for j in range(n_features)
        }
    )
    for j in range(n_features):  # every declared state present at least once
        X.iloc[: cards[j], j] = list("abcd")[: cards[j]]
    if missing:
        mask = rng.random(X.shape) < 0.2
        mask[: cards.max()] = False
        X = X.mask(mask)
    contacts = rng.random((n_features, n_features))
    return X, np.array(["c0", "c1", "c2"])[y], contacts + contacts.T, rng


def _models(contacts, n_features):
    root = n_features - 1
    return [NaiveBayes(), TAN(root=root), SimplerTAN(contacts, root=root, alpha=0.5)]


@SETTINGS
@given(tables(missing=True))
def test_probabilities_are_finite_and_sum_to_one(table):
    X, y, contacts, _ = table
    for model in _models(contacts, X.shape[1]):
        proba = model.fit(X, y).predict_proba(X)
        assert np.isfinite(proba).all() and (proba >= 0).all()
        np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-12)
        np.testing.assert_allclose(np.log(proba), model.predict_log_proba(X), atol=1e-9)
        assert (model.predict(X) == model.classes_[proba.argmax(axis=1)]).all()


@SETTINGS
@given(tables(missing=True))
def test_row_order_does_not_change_the_fit(table):
    X, y, contacts, rng = table
    order = rng.permutation(len(X))
    for model in _models(contacts, X.shape[1]):
        a = model.fit(X, y).predict_proba(X)
        b = model.fit(X.iloc[order], y[order]).predict_proba(X)
        np.testing.assert_allclose(a, b, atol=1e-12)


@SETTINGS
@given(tables())
def test_relabelling_categories_does_not_change_predictions(table):
    X, y, contacts, rng = table
    relabelled = X.copy()
    for column in X.columns:  # a random bijection of each column's values, reversing the sort
        values = sorted(X[column].unique())
        new_names = [f"z{k}" for k in rng.permutation(len(values))]
        relabelled[column] = X[column].map(dict(zip(values, new_names, strict=True)))
    for model in _models(contacts, X.shape[1]):
        a = model.fit(X, y).predict_proba(X)
        b = model.fit(relabelled, y).predict_proba(relabelled)
        np.testing.assert_allclose(a, b, atol=1e-12)


@SETTINGS
@given(tables(), st.data())
def test_a_missing_value_equals_the_sum_over_its_values(table, data):
    X, y, contacts, _ = table
    column = data.draw(st.sampled_from(list(X.columns)))
    row = data.draw(st.integers(0, len(X) - 1))
    for model in _models(contacts, X.shape[1]):
        model.fit(X, y)
        hidden = X.iloc[[row]].copy()
        hidden[column] = np.nan
        got = model._joint_log_likelihood(hidden)[0]
        filled = pd.concat([X.iloc[[row]]] * len(model.categories_[X.columns.get_loc(column)]))
        filled[column] = model.categories_[X.columns.get_loc(column)]
        by_hand = np.log(np.exp(model._joint_log_likelihood(filled)).sum(axis=0))
        np.testing.assert_allclose(got, by_hand, rtol=1e-10)


@pytest.mark.parametrize("n_missing", [1, 2, 3])
def test_several_missing_values_equal_brute_force_enumeration(n_missing):
    rng = np.random.default_rng(n_missing)
    X = pd.DataFrame(rng.integers(0, 3, (200, 5)), columns=list("abcde"))
    y = (X.a + X.b + rng.integers(0, 2, 200)) % 2
    contacts = rng.random((5, 5))
    for model in [TAN(root="c"), SimplerTAN(contacts + contacts.T)]:
        model.fit(X, y)
        hidden = list(rng.choice(list("abcde"), n_missing, replace=False))
        row = X.iloc[[7]].astype(float)
        row[hidden] = np.nan
        grid = pd.MultiIndex.from_product([range(3)] * n_missing).to_frame(index=False)
        filled = pd.concat([X.iloc[[7]]] * len(grid), ignore_index=True)
        filled[hidden] = grid.to_numpy()
        expected = np.log(np.exp(model._joint_log_likelihood(filled)).sum(axis=0))
        np.testing.assert_allclose(model._joint_log_likelihood(row)[0], expected, rtol=1e-10)
