"""make_tree_classification: shapes, the sampled distribution, and the known tree."""

import networkx as nx
import numpy as np
import pytest
from scipy.special import logsumexp

from bnclassify import TAN, NaiveBayes, SimplerTAN
from bnclassify.datasets import make_tree_classification
from bnclassify.stats import family_counts


def test_shapes_dtypes_and_ranges():
    X, y = make_tree_classification(
        300, 5, n_categories=[2, 3, 4, 5, 6], n_classes=3, random_state=1
    )
    assert X.shape == (300, 5) and X.dtype == np.uint8
    assert y.shape == (300,) and set(np.unique(y)) <= {0, 1, 2}
    assert (X.max(axis=0) < np.array([2, 3, 4, 5, 6])).all()


def test_same_seed_same_data_other_seed_other_data():
    a = make_tree_classification(200, 6, random_state=3)
    b = make_tree_classification(200, 6, random_state=3)
    c = make_tree_classification(200, 6, random_state=4)
    assert all(np.array_equal(u, v) for u, v in zip(a, b, strict=True))
    assert not np.array_equal(a[0], c[0])


def test_as_frame():
    X, y = make_tree_classification(50, 3, as_frame=True, random_state=0)
    assert list(X.columns) == ["x0", "x1", "x2"] and y.name == "class"


def test_the_generating_structure_is_a_tan():
    _, _, truth = make_tree_classification(10, 12, return_network=True, random_state=5)
    features = truth.feature_names
    tree = truth.structure.subgraph(features)
    assert nx.is_arborescence(tree)
    assert [n for n in tree if tree.in_degree(n) == 0] == [truth.root]
    assert all(truth.structure.has_edge("class", f) for f in features)
    # parents, adjacency and the compiled network describe the same tree
    for i, p in enumerate(truth.parents):
        expected = () if p < 0 else (int(p),)
        assert truth.compiled.parents[i] == expected
        if p >= 0:
            assert truth.structure.has_edge(features[p], features[i])
    assert truth.adjacency.sum() == 2 * (len(features) - 1)
    assert np.array_equal(truth.adjacency, truth.adjacency.T)


def test_sampled_frequencies_follow_the_cpts():
    n = 200_000
    X, y, truth = make_tree_classification(
        n, 4, n_categories=3, n_classes=2, weights=[0.3, 0.7], return_network=True, random_state=7
    )
    assert abs(np.mean(y == 0) - 0.3) < 5 * np.sqrt(0.21 / n)
    codes = X.astype(np.intp)
    cards = [3] * 4
    for i, p in enumerate(truth.parents):
        parents = [] if p < 0 else [int(p)]
        counts = family_counts(codes, y, i, parents, cards, 2)
        expected = np.exp(truth.compiled.factors[i].log_table_)
        rows = counts.sum(axis=-1, keepdims=True)
        observed = counts / np.maximum(rows, 1)
        sigma = np.sqrt(expected * (1 - expected) / np.maximum(rows, 1))
        well_sampled = np.broadcast_to(rows >= 200, counts.shape)
        assert (np.abs(observed - expected)[well_sampled] <= 6 * sigma[well_sampled] + 1e-3).all()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_tan_recovers_the_generating_tree(seed):
    X, y, truth = make_tree_classification(
        20_000, 7, concentration=0.3, return_network=True, random_state=seed
    )
    learned = TAN(root=truth.root).fit(X, y)
    assert set(learned.structure_.edges) == set(truth.structure.edges)


def test_simpler_tan_with_the_adjacency_is_the_true_structure():
    X, y, truth = make_tree_classification(500, 9, return_network=True, random_state=2)
    model = SimplerTAN(truth.adjacency, root=truth.root).fit(X, y)
    assert set(model.structure_.edges) == set(truth.structure.edges)


def test_true_network_predicts_held_out_rows_better_than_naive_bayes():
    # the generating network's posterior is Bayes-optimal; NB ignores the tree
    X, y, truth = make_tree_classification(
        25_000, 6, concentration=0.3, return_network=True, random_state=11
    )
    train, test = slice(0, 5000), slice(5000, None)
    joint = truth.compiled.joint_log_likelihood(X[test].astype(np.intp))
    log_posterior = joint - logsumexp(joint, axis=1, keepdims=True)
    rows = np.arange(len(y[test]))
    true_cll = log_posterior[rows, y[test]].sum()
    nb = NaiveBayes().fit(X[train], y[train])
    nb_cll = np.log(nb.predict_proba(X[test])[rows, y[test]]).sum()
    tan = TAN().fit(X[train], y[train])
    tan_cll = np.log(tan.predict_proba(X[test])[rows, y[test]]).sum()
    assert true_cll > tan_cll > nb_cll


def test_uint8_codes_fit_like_int64_codes():
    X, y = make_tree_classification(400, 5, n_categories=[2, 3, 256, 4, 5], random_state=3)
    a = TAN().fit(X, y)
    b = TAN().fit(X.astype(np.int64), y)
    assert set(a.structure_.edges) == set(b.structure_.edges)
    assert np.allclose(a.predict_proba(X), b.predict_proba(X.astype(np.int64)))


@pytest.mark.parametrize(
    "kwargs",
    [
        {"n_samples": -1},
        {"n_features": 0},
        {"n_classes": 1},
        {"n_categories": 0},
        {"n_categories": 300},
        {"concentration": 0.0},
        {"weights": [1.0, 2.0, 3.0]},
        {"weights": [-1.0, 2.0]},
    ],
)
def test_bad_parameters_raise(kwargs):
    with pytest.raises(ValueError):
        make_tree_classification(**kwargs)
