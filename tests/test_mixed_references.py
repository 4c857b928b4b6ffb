"""KDB, SPODE, AODE and EnsembleTAN on continuous and mixed data against slow references.

Each model's log P(c, x) is recomputed by ``_reference.slow_network_log_joint``, which fits
every parameter again from the training rows one at a time, on the model's own structure
(KDB, the TAN members) or on the one its definition gives (SPODE, AODE).
"""

import numpy as np
import pandas as pd
import pytest
from _reference import slow_network_log_joint
from scipy.special import logsumexp, softmax

from bnclassify import AODE, KDB, SPODE, TAN, EnsembleTAN, NaiveBayes, SimplerTAN
from bnclassify.structure import name_order

# tests of the density nodes as the kinds rule chooses them (distributions="density"; the
# default bins continuous columns, tests/test_binned.py)
pytestmark = pytest.mark.usefixtures("numbers_as_densities")


def _table(n=300, seed=0):
    """site drives x and colour; site and x drive z; colour drives w."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    site = rng.integers(0, 3, n)
    x = 2.0 * site + y + rng.normal(0, 0.5, n)
    z = 1.5 * x - 2.0 * y + site + rng.normal(0, 0.3, n)
    colour = np.where(rng.random(n) < 0.2 + 0.25 * site, "red", "blue")
    X = pd.DataFrame(
        {
            "z": z,
            "site": np.array(["s0", "s1", "s2"])[site],
            "x": x,
            "colour": colour,
            "w": rng.normal(size=n) + 1.5 * (colour == "red"),
        }
    )
    return X, pd.Series(np.array(["neg", "pos"])[y], name="label")


def _continuous():
    X, y = _table()
    return X[["z", "x", "w"]], y


def _feature_parents(model):
    return {
        f: [p for p in model.structure_.predecessors(f) if p != model.class_node_]
        for f in model.feature_names_
    }


def _reference(parents, X, y, rows):
    joints = [slow_network_log_joint(parents, X, y, row) for _, row in rows.iterrows()]
    return np.array([[joint[c] for c in sorted(set(y))] for joint in joints])


def _assert_gaussian(model, X):
    kinds = dict(zip(X.columns, model.feature_kinds_, strict=True))
    assert {f: k for f, k in kinds.items() if X[f].dtype.kind == "f"} == {
        f: "gaussian" for f in X.columns if X[f].dtype.kind == "f"
    }


@pytest.mark.parametrize("data", [_continuous, _table], ids=["continuous", "mixed"])
@pytest.mark.parametrize("k", [1, 2])
def test_kdb_equals_the_slow_reference(data, k):
    X, y = data()
    model = KDB(k=k).fit(X, y)
    _assert_gaussian(model, X)
    parents = _feature_parents(model)
    # the reference sees real families: k parents, at most one of them Gaussian (KDB's rule)
    assert max(len(p) for p in parents.values()) == (min(k, 1) if data is _continuous else k)
    if data is _table and k == 2:
        assert parents["z"] == ["x", "site"] or parents["z"] == ["site", "x"]
    rows = X.iloc[::10]
    expected = _reference(parents, X, y, rows)
    np.testing.assert_allclose(model._joint_log_likelihood(rows), expected, rtol=1e-9)
    np.testing.assert_allclose(model.predict_proba(rows), softmax(expected, axis=1), atol=1e-12)


@pytest.mark.parametrize("superparent", ["site", "colour"])
def test_mixed_spode_equals_the_slow_reference(superparent):
    X, y = _table()
    model = SPODE(superparent=superparent).fit(X, y)
    _assert_gaussian(model, X)
    parents = {f: ([] if f == superparent else [superparent]) for f in X.columns}
    rows = X.iloc[::10]
    expected = _reference(parents, X, y, rows)
    np.testing.assert_allclose(model._joint_log_likelihood(rows), expected, rtol=1e-9)


def test_mixed_aode_is_the_mean_of_the_reference_spodes():
    X, y = _table()
    model = AODE().fit(X, y)
    rows = X.iloc[::10]
    spodes = [
        _reference({f: ([] if f == s else [s]) for f in X.columns}, X, y, rows)
        for s in ("site", "colour")  # the categorical features: the super-parents
    ]
    expected = logsumexp(np.stack(spodes), axis=0) - np.log(len(spodes))
    np.testing.assert_allclose(model._joint_log_likelihood(rows), expected, rtol=1e-9)


def test_continuous_spode_and_aode_are_the_reference_naive_bayes():
    X, y = _continuous()
    rows = X.iloc[::10]
    expected = _reference({f: [] for f in X.columns}, X, y, rows)
    with pytest.warns(UserWarning, match="no categorical feature"):
        spode = SPODE().fit(X, y)
    np.testing.assert_allclose(spode._joint_log_likelihood(rows), expected, rtol=1e-9)
    with pytest.warns(UserWarning, match="AODE found no categorical feature"):
        aode = AODE().fit(X, y)
    np.testing.assert_allclose(aode._joint_log_likelihood(rows), expected, rtol=1e-9)
    naive = NaiveBayes().fit(X, y)
    np.testing.assert_allclose(naive._joint_log_likelihood(rows), expected, rtol=1e-9)


@pytest.mark.parametrize("data", [_continuous, _table], ids=["continuous", "mixed"])
def test_ensemble_tan_is_the_mean_of_its_reference_members(data):
    X, y = data()
    contacts = np.ones((X.shape[1], X.shape[1])) - np.eye(X.shape[1])
    model = EnsembleTAN(contact_matrix=contacts).fit(X, y)
    rows = X.iloc[::10]
    members = model.estimators_
    # "auto": a TAN at every possible root (the categorical features, when there are any)
    # and one Simpler TAN at the first of them by name
    roots = [f for f in X.columns if X[f].dtype.kind != "f"] or list(X.columns)
    assert [(type(m), m.root) for m in members] == [(TAN, r) for r in roots] + [
        (SimplerTAN, roots[name_order(roots)[0]])
    ]
    probabilities = [  # structures from the members, parameters fitted again
        softmax(_reference(_feature_parents(m), X, y, rows), axis=1) for m in members
    ]
    np.testing.assert_allclose(
        model.predict_proba(rows), np.mean(probabilities, axis=0), rtol=1e-9, atol=1e-15
    )
