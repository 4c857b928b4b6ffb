"""The fitted network equals what pgmpy learns and infers on the same structure."""

import numpy as np
import pandas as pd
import pytest
from _reference import cpd_as_dict
from pgmpy.estimators import TreeSearch
from pgmpy.inference import VariableElimination
from pgmpy.models import DiscreteBayesianNetwork
from pgmpy.parameter_estimator import DiscreteBayesianEstimator
from sklearn.metrics import mutual_info_score

from bnclassify import TAN, NaiveBayes, SimplerTAN
from bnclassify.datasets import load_car, load_lactamase, load_nursery, load_p450, load_vote


def _pgmpy_data(X, y, class_node):
    data = pd.concat([X, y.rename(class_node)], axis=1).astype(object)
    return data.where(data.notna(), np.nan)


def _pgmpy_fit(model, X, y, alpha):
    reference = DiscreteBayesianNetwork(model.structure_.edges())
    data = _pgmpy_data(X, y, model.class_node_)
    estimator = DiscreteBayesianEstimator(prior_type="dirichlet", pseudo_counts=alpha)
    reference.add_cpds(*estimator.fit(reference, data).parameters_)
    return reference


def _models(name):
    if name == "p450":
        p450 = load_p450()
        return p450.data, p450.target, [NaiveBayes(), TAN(), SimplerTAN(p450.contact_matrix)]
    if name == "car":
        X, y = load_car(return_X_y=True)
        return X, y, [NaiveBayes(), TAN(root="safety")]
    X, y = load_vote(return_X_y=True)
    return X, y, [NaiveBayes(), TAN()]


@pytest.mark.parametrize("dataset", ["p450", "car", "vote"])
@pytest.mark.parametrize("alpha", [1.0, 0.5])
def test_cpds_equal_pgmpy_bayesian_estimator(dataset, alpha):
    X, y, models = _models(dataset)
    for model in models:
        model.set_params(alpha=alpha).fit(X, y)
        reference = _pgmpy_fit(model, X, y, alpha)
        ours = model.network_
        assert ours.check_model()
        assert set(ours.edges()) == set(reference.edges())
        for cpd in reference.get_cpds():
            expected = cpd_as_dict(cpd)
            got = cpd_as_dict(ours.get_cpds(cpd.variable))
            assert got.keys() == expected.keys()
            np.testing.assert_allclose(
                [got[k] for k in expected], list(expected.values()), rtol=0, atol=1e-12
            )


def _ve_posteriors(network, X, class_node, classes):
    inference = VariableElimination(network)
    out = np.empty((len(X), len(classes)))
    for k, (_, row) in enumerate(X.iterrows()):
        evidence = {name: value for name, value in row.items() if not pd.isna(value)}
        factor = inference.query([class_node], evidence=evidence, show_progress=False)
        out[k] = [factor.get_value(**{class_node: c}) for c in classes]
    return out


@pytest.mark.parametrize("dataset", ["p450", "car", "vote"])
def test_predict_proba_equals_variable_elimination(dataset):
    X, y, models = _models(dataset)
    if dataset == "car":
        X, y = X.iloc[::5], y.iloc[::5]  # every category still present; keeps the test fast
    for model in models:
        model.fit(X, y)
        expected = _ve_posteriors(model.network_, X, model.class_node_, model.classes_.tolist())
        np.testing.assert_allclose(model.predict_proba(X), expected, rtol=0, atol=1e-9)


def test_vote_rows_with_missing_values_equal_variable_elimination():
    X, y = load_vote(return_X_y=True)
    incomplete = X.isna().any(axis=1)
    assert incomplete.sum() == 203
    model = TAN(root="physician_fee_freeze").fit(X, y)
    expected = _ve_posteriors(model.network_, X[incomplete], "Class", model.classes_.tolist())
    np.testing.assert_allclose(model.predict_proba(X[incomplete]), expected, rtol=0, atol=1e-9)


def test_partial_evidence_matches_an_independent_pgmpy_fit():
    # Hide six of eight blocks: the fast path's exact marginalisation must equal pgmpy's
    # inference on a network pgmpy fitted from scratch with the same structure.
    p450 = load_p450()
    model = SimplerTAN(p450.contact_matrix).fit(p450.data, p450.target)
    reference = VariableElimination(_pgmpy_fit(model, p450.data, p450.target, 1.0))
    rows = p450.data.iloc[:40].copy()
    rows[["block2", "block3", "block4", "block5", "block6", "block7"]] = np.nan
    expected = [
        reference.query(
            ["functional"], {"block1": r.block1, "block8": r.block8}, show_progress=False
        ).values
        for r in rows.itertuples()
    ]
    np.testing.assert_allclose(model.predict_proba(rows), expected, rtol=0, atol=1e-12)


def _pairwise_complete_mi(a, b):
    # pgmpy's mutual_info_score refuses NaN; our CMI counts each pair on the rows observing both
    keep = a.notna().to_numpy() & b.notna().to_numpy()
    return mutual_info_score(a[keep].astype(str), b[keep].astype(str))


@pytest.mark.parametrize(
    "loader",
    [load_car, load_nursery, load_vote, load_p450, load_lactamase],
    ids=lambda f: f.__name__,
)
def test_default_tan_tree_equals_pgmpy_tree_search(loader):
    # no near-ties: every non-tree edge loses to each tree edge on its cycle by >= 1.2e-4
    # nats (vote; car 3e-3), far above rounding, so tie-breaking cannot matter
    X, y = loader(return_X_y=True)
    model = TAN().fit(X, y)
    data = _pgmpy_data(X, y, "class__")
    kwargs = {"edge_weights_fn": _pairwise_complete_mi} if X.isna().any().any() else {}
    dag = TreeSearch(data, root_node=X.columns[0], n_jobs=1).estimate(
        estimator_type="tan", class_node="class__", show_progress=False, **kwargs
    )
    theirs = {frozenset(e) for e in dag.edges() if "class__" not in e}
    ours = {frozenset(e) for e in model.structure_.edges() if model.class_node_ not in e}
    assert len(ours) == X.shape[1] - 1
    assert ours == theirs


def test_tan_tree_on_p450_is_the_stated_tree():
    p450 = load_p450()
    model = TAN().fit(p450.data, p450.target)
    ours = {frozenset(e) for e in model.structure_.edges() if "functional" not in e}
    # the tree SOURCES.md states for P450
    stated = {
        ("block1", "block4"),
        ("block1", "block7"),
        ("block7", "block2"),
        ("block7", "block5"),
        ("block7", "block6"),
        ("block7", "block8"),
        ("block5", "block3"),
    }
    assert ours == {frozenset(e) for e in stated}
