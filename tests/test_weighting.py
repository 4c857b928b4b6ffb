"""Naive Bayes feature weighting: AWNB, MANB and WANBIA (R bnclassify's lp options)."""

import os
import tempfile

import numpy as np
import pandas as pd
import pytest
from _checks import parametrize_with_checks
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import gammaln

from bnclassify import NaiveBayes
from bnclassify.classifiers import AWNB, MANB, WANBIA
from bnclassify.datasets import load_car, load_vote
from bnclassify.io import dump, load


def informative_table(n=600, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    return (
        pd.DataFrame(
            {
                "signal": np.where(rng.random(n) < 0.9, y, 1 - y).astype(str),
                "noise": rng.integers(0, 3, n).astype(str),
                "copy": np.where(rng.random(n) < 0.9, y, 1 - y).astype(str),
            }
        ),
        y,
    )


def test_awnb_weighs_a_tested_feature_above_noise_and_is_reproducible():
    X, y = informative_table()
    a = NaiveBayes(weighting=AWNB(random_state=3)).fit(X, y)
    b = NaiveBayes(weighting=AWNB(random_state=3)).fit(X, y)
    assert np.array_equal(a.feature_weights_, b.feature_weights_)
    w = dict(zip(X.columns, a.feature_weights_, strict=True))
    assert w["signal"] > w["noise"] and w["copy"] > w["noise"]
    assert ((a.feature_weights_ >= 0) & (a.feature_weights_ <= 1)).all()


def test_a_zero_weight_makes_the_feature_uniform_in_every_class():
    X, y = informative_table()
    model = NaiveBayes(weighting=AWNB(trees=1, random_state=0)).fit(X, y)
    for name, w in zip(X.columns, model.feature_weights_, strict=True):
        table = model.distributions_[name].table_
        np.testing.assert_allclose(table.sum(axis=1), 1.0)
        if w == 0:
            np.testing.assert_allclose(table, 1.0 / table.shape[1])


def manb_posterior(n_cx, alpha, prior):
    """The arc posterior from Dirichlet marginal likelihoods, written out cell by cell."""
    n_cx = np.asarray(n_cx, float)
    C, r = n_cx.shape
    arc = 0.0
    for c in range(C):
        arc += gammaln(r * alpha) - gammaln(r * alpha + n_cx[c].sum())
        for v in range(r):
            arc += gammaln(alpha + n_cx[c, v]) - gammaln(alpha)
    n_x = n_cx.sum(axis=0)
    none = gammaln(r * alpha) - gammaln(r * alpha + n_x.sum())
    for v in range(r):
        none += gammaln(alpha + n_x[v]) - gammaln(alpha)
    a, b = arc + np.log(prior), none + np.log(1 - prior)
    return 1.0 / (1.0 + np.exp(b - a))


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 1), st.integers(0, 2)), min_size=4, max_size=40),
    st.floats(0.05, 0.95),
)
def test_manb_weights_are_the_arc_posteriors_and_the_cpts_their_average(rows, prior):
    y = np.array([r[0] for r in rows])
    x = np.array([r[1] for r in rows])
    if len(np.unique(y)) < 2:
        return
    X = pd.DataFrame({"x": pd.Categorical(x, categories=[0, 1, 2])})
    model = NaiveBayes(weighting=MANB(prior=prior)).fit(X, y)
    n_cx = np.array([[np.sum((y == c) & (x == v)) for v in range(3)] for c in (0, 1)])
    w = manb_posterior(n_cx, 1.0, prior)
    assert model.feature_weights_[0] == pytest.approx(w, rel=1e-9)
    cpt = (n_cx + 1) / (n_cx + 1).sum(axis=1, keepdims=True)
    marginal = (n_cx.sum(axis=0) + 1) / (n_cx.sum() + 3)
    np.testing.assert_allclose(
        model.distributions_["x"].table_, w * cpt + (1 - w) * marginal, rtol=1e-9
    )


def test_wanbia_never_lowers_the_training_cll_and_stays_in_bounds():
    X, y = load_vote(return_X_y=True)
    plain = NaiveBayes().fit(X, y)
    weighted = NaiveBayes(weighting="wanbia").fit(X, y)
    w = weighted.feature_weights_
    assert ((w >= 0) & (w <= 1)).all() and (w < 1).any()
    assert weighted.conditional_log_likelihood(X, y) > plain.conditional_log_likelihood(X, y)


def test_continuous_features_keep_weight_one():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 200)
    X = pd.DataFrame({"g": rng.normal(y, 1.0), "c": (y ^ (rng.random(200) < 0.2)).astype(str)})
    for weighting in ("awnb", "manb", "wanbia"):
        model = NaiveBayes(weighting=weighting).fit(X, y)
        assert model.feature_weights_[0] == 1.0


@pytest.mark.parametrize(
    "weighting",
    ["awnb", "manb", "wanbia", AWNB(trees=3, bootstrap=0.8, random_state=4), MANB(0.2), WANBIA()],
)
def test_weighted_models_save_and_load(weighting):
    X, y = load_car(return_X_y=True)
    model = NaiveBayes(weighting=weighting).fit(X, y)
    again = load(dump(model, os.path.join(tempfile.mkdtemp(), "nb.bnc")))
    assert np.array_equal(again.predict_proba(X), model.predict_proba(X))
    assert np.array_equal(again.feature_weights_, model.feature_weights_)
    if not isinstance(weighting, str):  # the options come back as the same class and values
        assert type(again.weighting) is type(weighting)
        assert again.weighting.get_params() == weighting.get_params()


def test_bad_weighting_names_itself():
    X, y = load_car(return_X_y=True)
    with pytest.raises(ValueError, match="weighting"):
        NaiveBayes(weighting="bogus").fit(X, y)
    with pytest.raises(ValueError, match="MANB prior"):
        NaiveBayes(weighting=MANB(prior=1.0)).fit(X, y)
    assert not hasattr(NaiveBayes(weighting="wanbia"), "partial_fit")
    manb = NaiveBayes(weighting="manb")
    for rows in np.array_split(np.arange(len(X)), 3):
        manb.partial_fit(X.iloc[rows], y.iloc[rows], classes=np.unique(y))
    full = NaiveBayes(weighting="manb").fit(X, y)
    np.testing.assert_allclose(manb.predict_proba(X), full.predict_proba(X))


@parametrize_with_checks(
    [NaiveBayes(weighting=w) for w in (AWNB(random_state=0), MANB(), WANBIA())]
)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)
