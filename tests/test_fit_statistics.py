"""Model-level fit statistics: log_likelihood, CLL, aic, bic and n_parameters_."""

import itertools
import math
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from pgmpy.models import DiscreteBayesianNetwork
from pgmpy.parameter_estimator import DiscreteBayesianEstimator
from sklearn.exceptions import NotFittedError
from sklearn.metrics import log_loss

from bnclassify import AODE, KDB, SPODE, TAN, EnsembleTAN, NaiveBayes, SimplerTAN
from bnclassify.datasets import load_car, load_p450, load_vote


def _models(name):
    if name == "p450":
        p450 = load_p450()
        models = [NaiveBayes(), TAN(), SimplerTAN(p450.contact_matrix), TAN(criterion="bic")]
        return p450.data, p450.target, models + [KDB(k=2), SPODE(superparent="block5")]
    X, y = load_car(return_X_y=True)
    return X, y, [NaiveBayes(), TAN(root="safety"), KDB(k=3), SPODE(superparent="safety")]


def _parents(model):
    return {
        f: [p for p in model.structure_.predecessors(f) if p != model.class_node_]
        for f in model.feature_names_
    }


def slow_log_likelihood(model, X, y, alpha):
    """sum_rows log P(y, x) with every CPT counted from the rows by hand (complete data)."""
    parents = _parents(model)
    rows = [dict(zip(X.columns, r, strict=True)) for r in X.itertuples(index=False)]
    labels = list(y)
    classes, n = sorted(set(labels)), len(labels)
    cards = {f: len(X[f].cat.categories) for f in X.columns}  # declared, seen or not
    class_count = Counter(labels)
    family = {
        f: Counter(
            (c, *(r[p] for p in parents[f]), r[f]) for r, c in zip(rows, labels, strict=True)
        )
        for f in X.columns
    }
    context = {
        f: Counter((c, *(r[p] for p in parents[f])) for r, c in zip(rows, labels, strict=True))
        for f in X.columns
    }
    total = 0.0
    for r, c in zip(rows, labels, strict=True):
        total += math.log((class_count[c] + alpha) / (n + alpha * len(classes)))
        for f in X.columns:
            key = (c, *(r[p] for p in parents[f]))
            total += math.log(
                (family[f][(*key, r[f])] + alpha) / (context[f][key] + alpha * cards[f])
            )
    return total


@pytest.mark.parametrize("dataset", ["p450", "car"])
@pytest.mark.parametrize("alpha", [1.0, 0.5])
def test_log_likelihood_equals_a_by_hand_computation(dataset, alpha):
    X, y, models = _models(dataset)
    if dataset == "car":  # a random third keeps the slow reference quick
        rows = np.random.default_rng(0).choice(len(X), size=len(X) // 3, replace=False)
        X, y = X.iloc[rows], y.iloc[rows]
    for model in models:
        model.set_params(alpha=alpha).fit(X, y)
        assert model.log_likelihood(X, y) == pytest.approx(
            slow_log_likelihood(model, X, y, alpha), rel=1e-12
        )


def _pgmpy_log_likelihood(model, X, y, alpha):
    """The same sum from a network pgmpy fits independently, evaluated CPD by CPD."""
    network = DiscreteBayesianNetwork(model.structure_.edges())
    data = pd.concat([X, y.rename(model.class_node_)], axis=1).astype(object)
    estimator = DiscreteBayesianEstimator(prior_type="dirichlet", pseudo_counts=alpha)
    network.add_cpds(*estimator.fit(network, data).parameters_)
    total = 0.0
    for cpd in network.get_cpds():
        variables = cpd.variables
        for combination, count in Counter(map(tuple, data[variables].to_numpy())).items():
            total += count * math.log(
                cpd.get_value(**dict(zip(variables, combination, strict=True)))
            )
    return total, network


@pytest.mark.parametrize("dataset", ["p450", "car"])
def test_statistics_agree_with_an_independent_pgmpy_network(dataset):
    X, y, models = _models(dataset)
    for model in models:
        model.fit(X, y)
        expected, network = _pgmpy_log_likelihood(model, X, y, 1.0)
        assert model.log_likelihood(X, y) == pytest.approx(expected, rel=1e-12)
        free = sum(
            (cpd.variable_card - 1) * int(np.prod(cpd.cardinality[1:]))
            for cpd in network.get_cpds()
        )
        assert model.n_parameters_ == free


def test_n_parameters_by_hand():
    X, y = load_car(return_X_y=True)
    r = X.nunique()
    C = y.nunique()
    for model in (NaiveBayes(), TAN(), KDB(k=2), KDB(k=4), SPODE()):
        model.fit(X, y)
        expected = (
            C
            - 1
            + sum(
                C * math.prod(r[p] for p in parents) * (r[f] - 1)
                for f, parents in _parents(model).items()
            )
        )
        assert model.n_parameters_ == expected
    assert NaiveBayes().fit(X, y).n_parameters_ == 3 + 4 * (3 + 3 + 3 + 2 + 2 + 2)


def test_aic_and_bic_are_the_usual_criteria():
    X, y = load_p450(return_X_y=True)
    model = TAN().fit(X, y)
    ll, k, n = model.log_likelihood(X, y), model.n_parameters_, len(X)
    assert model.aic(X, y) == pytest.approx(-2 * ll + 2 * k, rel=1e-15)
    assert model.bic(X, y) == pytest.approx(-2 * ll + k * math.log(n), rel=1e-15)
    half = X.iloc[: n // 2], y.iloc[: n // 2]
    assert model.bic(*half) == pytest.approx(
        -2 * model.log_likelihood(*half) + k * math.log(n // 2), rel=1e-15
    )
    # on P450 BIC prefers naive Bayes' fewer parameters, the log-likelihood prefers TAN
    nb = NaiveBayes().fit(X, y)
    assert model.log_likelihood(X, y) > nb.log_likelihood(X, y)
    assert model.n_parameters_ > nb.n_parameters_


@pytest.mark.parametrize("model", [NaiveBayes(), TAN(), KDB(k=2)])
def test_conditional_log_likelihood_equals_scikit_learns_log_loss(model):
    X, y = load_vote(return_X_y=True)
    model.fit(X, y)
    proba = model.predict_proba(X)
    expected = -log_loss(y, proba, labels=model.classes_, normalize=False)
    assert model.conditional_log_likelihood(X, y) == pytest.approx(expected, rel=1e-12)
    assert model.conditional_log_likelihood(X, y) > model.log_likelihood(X, y)


@pytest.mark.parametrize("model", [TAN(root="el_salvador_aid"), KDB(k=2)])
def test_log_likelihood_sums_missing_cells_out(model):
    X, y = load_vote(return_X_y=True)
    model.fit(X, y)
    rows = X[X.isna().sum(axis=1).between(1, 3)].iloc[:12]
    labels = y.loc[rows.index]
    expected = 0.0
    for (_, row), label in zip(rows.iterrows(), labels, strict=True):
        missing = [f for f in X.columns if pd.isna(row[f])]
        values = [model.categories_[list(X.columns).index(f)] for f in missing]
        completions = pd.DataFrame([row] * math.prod(map(len, values))).astype(object)
        for k, combination in enumerate(itertools.product(*values)):
            completions.iloc[k, [list(X.columns).index(f) for f in missing]] = combination
        joint = np.exp(model._joint_log_likelihood(completions))
        expected += math.log(joint[:, list(model.classes_).index(label)].sum())
    assert model.log_likelihood(rows, labels) == pytest.approx(expected, rel=1e-12)


def test_bad_labels_and_unfitted_models():
    X, y = load_p450(return_X_y=True)
    model = TAN().fit(X, y)
    with pytest.raises(ValueError, match="label 'maybe'.*classes seen in fit"):
        model.log_likelihood(X.iloc[:2], ["0", "maybe"])
    with pytest.raises(ValueError, match="X has 3 rows but y has shape"):
        model.conditional_log_likelihood(X.iloc[:3], y.iloc[:2])
    with pytest.raises(NotFittedError):
        TAN().n_parameters_  # noqa: B018
    assert not hasattr(TAN(), "n_parameters_")
    with pytest.raises(NotFittedError):
        TAN().aic(X, y)


def test_averaged_models_do_not_claim_single_network_statistics():
    # an average of networks has no single likelihood or parameter count to report
    for model in (EnsembleTAN(), AODE()):
        for name in ("log_likelihood", "aic", "bic", "n_parameters_", "network_"):
            assert not hasattr(model, name)
