"""SignalSubgraphClassifier, make_signal_subgraph_networks and their plots.

Peers and references: scipy's ``fisher_exact`` and ``chi2_contingency`` for the
per-edge tests, scikit-learn's ``BernoulliNB`` for the plug-in classifier on
the signal edges, a slow literal transcription of the coherent estimator, a
by-hand evaluation of the plug-in formula, and exact enumeration for the
Bayes-optimal accuracy.
"""

from __future__ import annotations

import itertools
import math
import pickle
import warnings

import matplotlib.pyplot as plt
import networkx as nx
import numpy as np
import pytest
import scipy.sparse
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import chi2_contingency, fisher_exact
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score
from sklearn.naive_bayes import BernoulliNB

from bnclassify import SignalSubgraphClassifier
from bnclassify.classifiers._signal_subgraph import (
    chi2_log_pvalues,
    coherent_signal_subgraph,
    fisher_exact_log_pvalues,
)
from bnclassify.datasets import make_signal_subgraph_networks
from bnclassify.graph_edges import candidate_edges, n_incident_edges, n_possible_edges
from bnclassify.plotting._networks import plot_signal_edge_probabilities, plot_signal_edges


@pytest.fixture(scope="module")
def networks():
    """Two-class undirected networks with a coherent signal on 2 of 14 vertices."""
    return make_signal_subgraph_networks(
        160,
        14,
        n_signal_edges=8,
        n_signal_vertices=2,
        p_signal=(0.2, 0.6),
        return_truth=True,
        random_state=3,
    )


def _tables(X, y, rows, cols, classes):
    """Per-edge class x (present, absent) contingency tables, by a loop over edges."""
    tables = []
    for i, j in zip(rows, cols, strict=True):
        tables.append(
            [[int(X[y == c, i, j].sum()), int((X[y == c, i, j] == 0).sum())] for c in classes]
        )
    return np.array(tables)


# -- the per-edge tests against scipy ------------------------------------------------
@pytest.mark.parametrize(
    ("n_1", "n"), [(1, 2), (1, 5), (5, 10), (10, 20), (7, 23), (30, 61), (23, 30)]
)
def test_fisher_log_pvalues_equal_scipy_on_every_table(n_1, n):
    """Every 2 x 2 table with these row sums, balanced designs (symmetric pmfs) included."""
    pairs = [(x, k) for k in range(n + 1) for x in range(max(0, n_1 - (n - k)), min(k, n_1) + 1)]
    x, k = np.array(pairs).T
    ours = np.exp(fisher_exact_log_pvalues(x, k, n_1, n))
    scipy_p = [fisher_exact([[a, n_1 - a], [b - a, n - n_1 - (b - a)]]).pvalue for a, b in pairs]
    np.testing.assert_allclose(ours, scipy_p, rtol=1e-9, atol=0)


def test_fisher_log_pvalues_in_small_blocks_of_margins(monkeypatch):
    """Many networks are processed in blocks of margins; the blocks must not matter."""
    rng = np.random.default_rng(0)
    k = rng.integers(0, 91, 500)
    x = np.array([rng.integers(max(0, 37 - (90 - b)), min(b, 37) + 1) for b in k])
    whole = fisher_exact_log_pvalues(x, k, 37, 90)
    monkeypatch.setattr("bnclassify.classifiers._signal_subgraph._FISHER_BLOCK", 100)
    np.testing.assert_array_equal(fisher_exact_log_pvalues(x, k, 37, 90), whole)
    tables = [[[a, 37 - a], [b - a, 53 - b + a]] for a, b in zip(x, k, strict=True)]
    expected = [fisher_exact(table).pvalue for table in tables]
    np.testing.assert_allclose(np.exp(whole), expected, rtol=1e-9)


def test_fisher_log_pvalues_stay_exact_where_pvalues_underflow():
    """2000 networks: perfect separation has p = 2 / C(2000, 1000) ~ 1e-600."""
    log_p = fisher_exact_log_pvalues([1000, 999, 990], [1000, 1000, 1000], 1000, 2000)
    exact = math.log(2) - (math.lgamma(2001) - 2 * math.lgamma(1001))
    assert fisher_exact([[1000, 0], [0, 1000]]).pvalue == 0.0  # scipy underflows here
    assert log_p[0] == pytest.approx(exact, rel=1e-10)
    assert log_p[0] < log_p[1] < log_p[2] < 0  # still ranked by strength


def test_estimator_pvalues_equal_scipy_fisher_per_edge(networks):
    X, y, _ = networks
    clf = SignalSubgraphClassifier(n_edges=5).fit(X, y)
    rows, cols = candidate_edges(14, directed=False, loops=False)
    tables = _tables(X, y, rows, cols, [0, 1])
    expected = [fisher_exact(t).pvalue for t in tables]
    np.testing.assert_allclose(clf.pvalues_[rows, cols], expected, rtol=1e-9)
    np.testing.assert_array_equal(clf.pvalues_, clf.pvalues_.T)  # undirected: mirrored
    assert np.isnan(np.diag(clf.pvalues_)).all()
    assert clf.test_ == "fisher"


def test_chi2_pvalues_equal_scipy_for_three_classes():
    X, y = make_signal_subgraph_networks(
        150, 9, n_signal_edges=6, p_signal=(0.1, 0.4, 0.7), random_state=1
    )
    X[:, 0, 1] = X[:, 1, 0] = 1  # an edge in every network: no information, p = 1
    clf = SignalSubgraphClassifier(n_edges=4).fit(X, y)
    assert clf.test_ == "chi2"
    rows, cols = candidate_edges(9, directed=False, loops=False)
    tables = _tables(X, y, rows, cols, [0, 1, 2])
    informative = tables[:, :, 0].sum(axis=1) % 150 != 0
    expected = [chi2_contingency(t, correction=False).pvalue for t in tables[informative]]
    np.testing.assert_allclose(clf.pvalues_[rows, cols][informative], expected, rtol=1e-9)
    assert clf.pvalues_[0, 1] == 1.0


def test_chi2_for_two_classes_equals_scipy_without_continuity_correction(networks):
    X, y, _ = networks
    clf = SignalSubgraphClassifier(n_edges=3, test="chi2").fit(X, y)
    i, j = clf.signal_edges_[0]
    table = _tables(X, y, [i], [j], [0, 1])[0]
    assert clf.pvalues_[i, j] == pytest.approx(chi2_contingency(table, correction=False).pvalue)
    assert chi2_log_pvalues(np.zeros((2, 1)), [3, 4])[0] == 0.0  # absent everywhere: p = 1


# -- the signal subgraph estimators --------------------------------------------------
def _incoherent_reference(pvalues, s):
    """Sort the edges by (p-value, edge) and keep the first s."""
    return sorted(pvalues, key=lambda e: (pvalues[e], e))[:s]


def _coherent_reference(pvalues, n, s, m):
    """Vogelstein et al. (2013), literally: raise the threshold one p-value at a time."""
    for threshold in sorted(set(pvalues.values())):
        score = [0] * n
        for (i, j), p in pvalues.items():
            if p <= threshold:
                score[i] += 1
                if j != i:
                    score[j] += 1
        top = sorted(range(n), key=lambda v: (-score[v], v))[:m]
        if sum(score[v] for v in top) >= s:
            touching = [e for e in pvalues if e[0] in top or e[1] in top]
            return sorted(touching, key=lambda e: (pvalues[e], e))[:s], sorted(top)
    raise AssertionError("the last threshold must always suffice")


@pytest.mark.parametrize(("directed", "loops"), list(itertools.product([False, True], repeat=2)))
def test_incoherent_keeps_the_most_significant_edges(directed, loops):
    X, y = make_signal_subgraph_networks(
        120, 10, n_signal_edges=6, directed=directed, loops=loops, random_state=4
    )
    clf = SignalSubgraphClassifier(n_edges=7, directed=directed, loops=loops).fit(X, y)
    rows, cols = candidate_edges(10, directed, loops)
    pvalues = {(int(i), int(j)): clf.pvalues_[i, j] for i, j in zip(rows, cols, strict=True)}
    assert clf.signal_edges_ == _incoherent_reference(pvalues, 7)
    assert all(i < j for i, j in clf.signal_edges_) or directed or loops
    assert loops or all(i != j for i, j in clf.signal_edges_)


@pytest.mark.parametrize(("directed", "loops"), list(itertools.product([False, True], repeat=2)))
@pytest.mark.parametrize(("n_edges", "n_vertices_signal"), [(8, 2), (5, 1), (12, 4)])
def test_coherent_equals_the_literal_algorithm(directed, loops, n_edges, n_vertices_signal):
    X, y = make_signal_subgraph_networks(
        100,
        10,
        n_signal_edges=8,
        n_signal_vertices=2,
        directed=directed,
        loops=loops,
        random_state=5,
    )
    clf = SignalSubgraphClassifier(
        n_edges=n_edges, n_vertices_signal=n_vertices_signal, directed=directed, loops=loops
    ).fit(X, y)
    rows, cols = candidate_edges(10, directed, loops)
    pvalues = {(int(i), int(j)): clf.pvalues_[i, j] for i, j in zip(rows, cols, strict=True)}
    edges, vertices = _coherent_reference(pvalues, 10, n_edges, n_vertices_signal)
    assert clf.signal_edges_ == edges
    assert clf.signal_vertices_.tolist() == vertices
    assert len(vertices) == n_vertices_signal
    assert all(i in vertices or j in vertices for i, j in clf.signal_edges_)
    flagged = [v for v, is_signal in clf.signal_graph_.nodes(data="signal_vertex") if is_signal]
    assert sorted(flagged) == vertices
    canonical = tuple if directed else frozenset
    assert {canonical(e) for e in clf.signal_graph_.edges} == {
        canonical(e) for e in clf.signal_edges_
    }


@settings(max_examples=150, deadline=None)
@given(data=st.data(), n=st.integers(2, 7), directed=st.booleans(), loops=st.booleans())
def test_coherent_equals_the_literal_algorithm_with_ties(data, n, directed, loops):
    """p-values drawn from a few levels, so thresholds and vertex scores tie a lot."""
    rows, cols = candidate_edges(n, directed, loops)
    levels = data.draw(st.lists(st.integers(1, 4), min_size=len(rows), max_size=len(rows)))
    log_p = -np.array(levels, dtype=float)
    m = data.draw(st.integers(1, n))
    s = data.draw(st.integers(1, n_incident_edges(n, m, directed, loops)))
    edges, vertices = coherent_signal_subgraph(log_p, rows, cols, n, s, m)
    pvalues = {(int(i), int(j)): p for i, j, p in zip(rows, cols, log_p, strict=True)}
    ref_edges, ref_vertices = _coherent_reference(pvalues, n, s, m)
    assert [(int(rows[e]), int(cols[e])) for e in edges] == ref_edges
    assert vertices.tolist() == ref_vertices


def test_coherent_with_all_vertices_is_incoherent(networks):
    X, y, _ = networks
    incoherent = SignalSubgraphClassifier(n_edges=9).fit(X, y)
    coherent = SignalSubgraphClassifier(n_edges=9, n_vertices_signal=14).fit(X, y)
    assert coherent.signal_edges_ == incoherent.signal_edges_


@pytest.mark.parametrize(("directed", "loops"), list(itertools.product([False, True], repeat=2)))
def test_edge_counts(directed, loops):
    for n in range(1, 7):
        rows, _ = candidate_edges(n, directed, loops)
        assert len(rows) == n_possible_edges(n, directed, loops)
        for m in range(n + 1):
            mask = np.zeros(n, bool)
            mask[:m] = True
            r, c = candidate_edges(n, directed, loops)
            assert n_incident_edges(n, m, directed, loops) == int((mask[r] | mask[c]).sum())


def test_directed_reads_both_triangles_and_warns_when_undirected_would_drop_edges():
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 40)
    X = (rng.random((80, 6, 6)) < 0.2).astype(int)
    X[:, 4, 1] = y  # signal only below the diagonal
    directed = SignalSubgraphClassifier(n_edges=1, directed=True).fit(X, y)
    assert directed.signal_edges_ == [(4, 1)]
    assert isinstance(directed.signal_graph_, nx.DiGraph)
    with pytest.warns(UserWarning, match="only the upper triangle"):
        undirected = SignalSubgraphClassifier(n_edges=1).fit(X, y)
    assert undirected.signal_edges_ != [(1, 4)]
    upper = np.triu(X, k=1)  # upper-triangular input is a valid convention: no warning
    upper[:, 1, 4] = y
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert SignalSubgraphClassifier(n_edges=1).fit(upper, y).signal_edges_ == [(1, 4)]


def test_self_loops_count_only_with_loops_true():
    rng = np.random.default_rng(1)
    y = np.repeat([0, 1], 30)
    X = (rng.random((60, 5, 5)) < 0.3).astype(int)
    X = np.triu(X) | np.triu(X, 1).transpose(0, 2, 1)
    X[:, 2, 2] = y
    assert SignalSubgraphClassifier(n_edges=1, loops=True).fit(X, y).signal_edges_ == [(2, 2)]
    no_loops = SignalSubgraphClassifier(n_edges=3).fit(X, y)
    assert all(i != j for i, j in no_loops.signal_edges_)
    assert np.isnan(no_loops.edge_prob_[:, 2, 2]).all()


# -- the plug-in classifier ----------------------------------------------------------
def test_plug_in_probabilities_equal_the_formula_by_hand():
    """Three vertices, six networks; the formula evaluated with plain Python floats."""
    a = [[0, 1, 0], [1, 0, 1], [0, 1, 0]]  # edges 0-1, 1-2
    b = [[0, 1, 1], [1, 0, 0], [1, 0, 0]]  # edges 0-1, 0-2
    c = [[0, 0, 1], [0, 0, 1], [1, 1, 0]]  # edges 0-2, 1-2
    X = np.array([a, a, b, c, c, b, c])
    y = np.array(["ctl", "ctl", "ctl", "pat", "pat", "pat", "pat"])
    alpha = 0.5
    clf = SignalSubgraphClassifier(n_edges=2, alpha=alpha).fit(X, y)
    # edge 0-1 is in 3/3 controls and 1/4 patients; 1-2: 2/3 vs 2/4; 0-2: 1/3 vs 4/4
    p_01 = fisher_exact([[3, 0], [1, 3]]).pvalue
    p_02 = fisher_exact([[1, 2], [4, 0]]).pvalue
    p_12 = fisher_exact([[2, 1], [2, 2]]).pvalue
    assert max(p_01, p_02) < p_12
    assert clf.signal_edges_ == ([(0, 1), (0, 2)] if p_01 < p_02 else [(0, 2), (0, 1)])

    def p_hat(present, total):
        return (present + alpha) / (total + 2 * alpha)

    p = {
        "ctl": {(0, 1): p_hat(3, 3), (0, 2): p_hat(1, 3)},
        "pat": {(0, 1): p_hat(1, 4), (0, 2): p_hat(4, 4)},
    }
    prior = {"ctl": 3 / 7, "pat": 4 / 7}
    new = np.array([a, b, c, np.zeros((3, 3), int)])
    for k, network in enumerate(new):
        joint = {}
        for label in ("ctl", "pat"):
            value = prior[label]
            for i, j in clf.signal_edges_:
                q = p[label][(i, j)]
                value *= q if network[i][j] == 1 else 1 - q
            joint[label] = value
        total = joint["ctl"] + joint["pat"]
        expected = [joint["ctl"] / total, joint["pat"] / total]
        np.testing.assert_allclose(clf.predict_proba(new[k : k + 1])[0], expected, rtol=1e-12)
    assert clf.edge_prob_[1, 0, 2] == pytest.approx(p_hat(4, 4))
    assert clf.edge_prob_[1, 2, 0] == clf.edge_prob_[1, 0, 2]
    np.testing.assert_allclose(np.exp(clf.class_log_prior_), [3 / 7, 4 / 7])
    assert clf.signal_graph_.edges[0, 2]["probability"] == {
        "ctl": pytest.approx(p_hat(1, 3)),
        "pat": pytest.approx(p_hat(4, 4)),
    }
    assert clf.signal_graph_.edges[clf.signal_edges_[0]]["rank"] == 1
    assert clf.signal_graph_.edges[0, 2]["pvalue"] == pytest.approx(p_02)


def test_equals_bernoulli_nb_on_the_signal_edges(networks):
    X, y, _ = networks
    clf = SignalSubgraphClassifier(n_edges=10, alpha=0.7).fit(X, y)
    rows, cols = np.array(clf.signal_edges_).T
    prior = np.bincount(y) / len(y)
    nb = BernoulliNB(alpha=0.7, class_prior=prior, force_alpha=True).fit(X[:, rows, cols], y)
    np.testing.assert_allclose(clf.predict_proba(X), nb.predict_proba(X[:, rows, cols]))
    np.testing.assert_allclose(clf.edge_log_prob_, nb.feature_log_prob_)
    np.testing.assert_array_equal(clf.predict(X), nb.predict(X[:, rows, cols]))


def test_probabilities_are_finite_and_normalised_for_large_and_perfect_subgraphs():
    rng = np.random.default_rng(2)
    y = np.repeat([0, 1], 20)
    X = np.zeros((40, 40, 40), dtype=bool)
    X[20:, :20, :20] = True  # 190 edges present in every patient, absent in every control
    X |= rng.random((40, 40, 40)) < 0.05
    X = X & X.transpose(0, 2, 1)
    clf = SignalSubgraphClassifier(n_edges=700).fit(X, y)
    proba = clf.predict_proba(X)
    assert np.isfinite(clf.predict_log_proba(X)).all()
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    probabilities = clf.edge_prob_[~np.isnan(clf.edge_prob_)]
    assert ((probabilities > 0) & (probabilities < 1)).all()
    assert clf.score(X, y) == 1.0


def test_class_prior_parameter(networks):
    X, y, _ = networks
    even = SignalSubgraphClassifier(n_edges=8, class_prior=[0.5, 0.5]).fit(X, y)
    skewed = SignalSubgraphClassifier(n_edges=8, class_prior=[0.9, 0.1]).fit(X, y)
    odds = np.log(skewed.predict_proba(X)) - np.log(even.predict_proba(X))
    np.testing.assert_allclose(odds[:, 0] - odds[:, 1], np.log(9), rtol=1e-9)


def test_labels_input_types_and_determinism(networks):
    X, y, _ = networks
    names = np.array(["control", "patient"])[y]
    reference = SignalSubgraphClassifier(n_edges=6).fit(X, y)
    for data in (X.astype(bool), X.astype(float), X.tolist()):
        clf = SignalSubgraphClassifier(n_edges=6).fit(data, names)
        assert clf.signal_edges_ == reference.signal_edges_
        assert set(clf.predict(data)) <= {"control", "patient"}
        np.testing.assert_allclose(clf.predict_proba(X), reference.predict_proba(X))
    order = np.random.default_rng(0).permutation(len(y))
    shuffled = SignalSubgraphClassifier(n_edges=6).fit(X[order], y[order])
    assert shuffled.signal_edges_ == reference.signal_edges_
    np.testing.assert_allclose(shuffled.predict_proba(X), reference.predict_proba(X))


# -- the proof: recovery and accuracy on a known signal subgraph --------------------
def test_recovery_grows_with_sample_size_and_accuracy_approaches_bayes():
    common = dict(n_vertices=20, n_signal_edges=8, p_signal=(0.2, 0.6), p_background=0.2)
    results = {}
    for n_train in (30, 400):
        recovery, gap = [], []
        for seed in range(3):
            X, y, truth = make_signal_subgraph_networks(
                n_train + 4000, return_truth=True, random_state=seed, **common
            )
            clf = SignalSubgraphClassifier(n_edges=8).fit(X[:n_train], y[:n_train])
            recovery.append(len(set(clf.signal_edges_) & set(truth.signal_edges)) / 8)
            gap.append(truth.bayes_accuracy - clf.score(X[n_train:], y[n_train:]))
        results[n_train] = (np.mean(recovery), np.mean(gap))
    assert results[400][0] >= 0.95
    assert results[400][0] > results[30][0] + 0.25
    assert abs(results[400][1]) < 0.02  # within Monte-Carlo error (sd ~0.005) of Bayes
    assert results[30][1] > results[400][1] + 0.03


def test_bayes_accuracy_equals_exact_enumeration():
    _, _, truth = make_signal_subgraph_networks(
        10, 8, n_signal_edges=6, p_signal=(0.3, 0.5, 0.8), weights=[1, 2, 1],
        return_truth=True, random_state=0,
    )  # fmt: skip
    rows, cols = np.array(truth.signal_edges).T
    q = truth.probabilities[:, rows, cols]  # (classes, 6)
    total = 0.0
    for pattern in itertools.product([0, 1], repeat=6):
        a = np.array(pattern)
        likelihood = np.prod(np.where(a == 1, q, 1 - q), axis=1)
        total += np.max(truth.class_prior * likelihood)
    assert truth.bayes_accuracy == pytest.approx(total, rel=1e-12)


# -- the generator -------------------------------------------------------------------
@pytest.mark.parametrize(("directed", "loops"), list(itertools.product([False, True], repeat=2)))
def test_generator_structure_and_edge_frequencies(directed, loops):
    X, y, truth = make_signal_subgraph_networks(
        4000, 8, n_signal_edges=5, n_signal_vertices=2, p_signal=(0.1, 0.7),
        p_background=0.3, weights=[3, 1], directed=directed, loops=loops,
        return_truth=True, random_state=7,
    )  # fmt: skip
    assert X.shape == (4000, 8, 8) and X.dtype == np.uint8
    assert set(np.unique(X)) <= {0, 1}
    assert np.mean(y == 0) == pytest.approx(0.75, abs=0.03)
    assert (X == X.transpose(0, 2, 1)).all() != directed
    assert np.diagonal(X, axis1=1, axis2=2).any() == loops
    rows, cols = candidate_edges(8, directed, loops)
    for c in (0, 1):
        observed = X[y == c][:, rows, cols].mean(axis=0)
        np.testing.assert_allclose(observed, truth.probabilities[c, rows, cols], atol=0.06)
    signal = set(truth.signal_edges)
    assert len(signal) == 5 and signal <= set(zip(rows.tolist(), cols.tolist(), strict=True))
    assert len(truth.signal_vertices) == 2
    for v in truth.signal_vertices:  # every signal vertex carries a signal edge
        assert any(v in e for e in signal)
    differs = np.argwhere(truth.probabilities[0] != truth.probabilities[1])
    expected = {tuple(e) for e in signal}
    if not directed:
        expected |= {(j, i) for i, j in signal}
    assert {tuple(map(int, e)) for e in differs} == expected


def test_generator_is_reproducible_and_incoherent_by_default():
    X1, y1, t1 = make_signal_subgraph_networks(50, 10, return_truth=True, random_state=11)
    X2, y2 = make_signal_subgraph_networks(50, 10, random_state=11)
    np.testing.assert_array_equal(X1, X2)
    np.testing.assert_array_equal(y1, y2)
    assert sorted(t1.signal_edges) == t1.signal_edges and len(t1.signal_edges) == 10
    assert t1.signal_vertices.tolist() == sorted({v for e in t1.signal_edges for v in e})


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (dict(n_signal_edges=46), "n_signal_edges=46 exceeds the 45 possible edges"),
        (dict(n_signal_edges=20, n_signal_vertices=2), "17 possible edges touching 2"),
        (dict(n_signal_edges=2, n_signal_vertices=3), "every signal vertex needs"),
        (dict(n_signal_vertices=11), "exceeds n_vertices=10"),
        (dict(p_signal=(0.2, 1.5)), "p_signal must hold probabilities"),
        (dict(p_signal=(0.2,)), "one probability per class"),
        (dict(p_background=-0.1), "p_background must hold probabilities"),
        (dict(weights=[1, 1, 1]), "weights must be 2"),
        (dict(n_signal_edges=0), "n_signal_edges must be an integer >= 1"),
        (dict(n_networks=0), "n_networks must be an integer >= 1"),
    ],
)
def test_generator_errors(kwargs, match):
    params = dict(n_networks=20, n_vertices=10) | kwargs
    with pytest.raises(ValueError, match=match):
        make_signal_subgraph_networks(**params)


# -- scikit-learn contract ----------------------------------------------------------
def test_grid_search_over_edges_and_vertices(networks):
    X, y, truth = networks
    grid = GridSearchCV(
        SignalSubgraphClassifier(),
        {"n_edges": [2, 8, 20], "n_vertices_signal": [None, 2]},
        cv=StratifiedKFold(4, shuffle=True, random_state=0),
    ).fit(X, y)
    assert grid.best_params_["n_edges"] == 8
    assert set(grid.best_estimator_.signal_edges_) == set(truth.signal_edges)
    assert np.isfinite(grid.cv_results_["mean_test_score"]).all()
    scores = cross_val_score(SignalSubgraphClassifier(n_edges=8), X, y, cv=3)
    assert scores.mean() > 0.8


def test_clone_pickle_params_and_refit(networks):
    X, y, _ = networks
    clf = SignalSubgraphClassifier(n_edges=4, n_vertices_signal=1, alpha=2.0)
    assert clone(clf).get_params() == clf.get_params()
    assert clf.fit(X, y) is clf
    restored = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(restored.predict_proba(X), clf.predict_proba(X))
    clf.set_params(n_edges=6, n_vertices_signal=None).fit(X[:, :10, :10], y)
    assert clf.n_vertices_ == 10 and len(clf.signal_edges_) == 6
    assert clf.__sklearn_tags__().input_tags.three_d_array


@pytest.mark.parametrize(
    "check",
    [
        "check_no_attributes_set_in_init",
        "check_parameters_default_constructible",
        "check_get_params_invariance",
        "check_set_params",
        "check_estimator_cloneable",
        "check_estimator_repr",
        "check_valid_tag_types",
    ],
)
def test_sklearn_checks_that_do_not_need_2d_data(check):
    from sklearn.utils import estimator_checks

    getattr(estimator_checks, check)("SignalSubgraphClassifier", SignalSubgraphClassifier())


def test_fit_leaves_parameters_alone(networks):
    X, y, _ = networks
    clf = SignalSubgraphClassifier(n_edges=np.int64(5), n_vertices_signal=2, class_prior=[0.5, 0.5])
    before = clone(clf).get_params()
    clf.fit(X, y)
    assert clf.get_params() == before


def test_not_fitted():
    with pytest.raises(NotFittedError):
        SignalSubgraphClassifier().predict(np.zeros((1, 3, 3)))


# -- bad input -----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("X", "error", "match"),
    [
        (np.zeros((6, 4, 5)), ValueError, "square adjacency matrices, got matrices of 4 rows"),
        (np.zeros((6, 4)), ValueError, "For a single network use X\\[np.newaxis\\]"),
        (np.zeros((6, 4, 4, 1)), ValueError, "4 dimension"),
        (np.zeros((0, 4, 4)), ValueError, "0 networks"),
        (np.full((6, 4, 4), 2), ValueError, "network 0 has the value 2 at \\(0, 0\\)"),
        (np.where(np.eye(4) > 0, 0.5, 0.0)[None].repeat(6, 0), ValueError, "value 0.5"),
        (np.full((6, 4, 4), np.nan), ValueError, "value nan"),
        (np.full((6, 4, 4), "1"), TypeError, "got text"),
        ([np.zeros((4, 4))] * 5 + [np.zeros((3, 3))], ValueError, "not all have the same"),
    ],
)
def test_bad_networks(X, error, match):
    y = [0, 1, 0, 1, 0, 1]
    with pytest.raises(error, match=match):
        SignalSubgraphClassifier(n_edges=1).fit(X, y)


def test_bad_value_names_network_and_cell():
    X = np.zeros((6, 4, 4))
    X[3, 1, 2] = -1
    with pytest.raises(ValueError, match=r"network 3 has the value -1 at \(1, 2\) \(1 cell"):
        SignalSubgraphClassifier(n_edges=1).fit(X, [0, 1] * 3)


def test_sparse_and_networkx_inputs_get_a_hint():
    with pytest.raises(TypeError, match="sparse"):
        SignalSubgraphClassifier().fit(scipy.sparse.csr_matrix(np.eye(3)), [0, 1, 0])
    with pytest.raises(TypeError, match="nx.to_numpy_array"):
        SignalSubgraphClassifier().fit([nx.path_graph(3)] * 2, [0, 1])


@pytest.mark.parametrize(
    ("params", "n", "match"),
    [
        (dict(n_edges=11), 5, "n_edges=11 exceeds the 10 possible edges of an undirected"),
        (dict(n_edges=16, loops=True), 5, "exceeds the 15 possible edges .* with self-loops"),
        (dict(n_edges=21, directed=True), 5, "exceeds the 20 possible edges of a directed"),
        (dict(n_edges=8, n_vertices_signal=2), 5, "n_edges=8 exceeds the 7 possible edges touch"),
        (dict(n_vertices_signal=6, n_edges=2), 5, "n_vertices_signal=6 exceeds the 5 vertices"),
        (dict(n_edges=0), 5, "n_edges must be an integer >= 1"),
        (dict(n_edges=2.5), 5, "n_edges must be an integer >= 1"),
        (dict(n_edges=True), 5, "n_edges must be an integer >= 1"),
        (dict(n_vertices_signal=0), 5, "n_vertices_signal must be None"),
        (dict(test="t"), 5, "test must be one of"),
        (dict(alpha=0), 5, "alpha must be a finite number > 0, got 0"),
        (dict(alpha=-1), 5, "alpha must be a finite number > 0, got -1"),
        (dict(class_prior=[1.0]), 5, "class_prior must have one entry per class"),
        (dict(class_prior=[0.7, 0.7]), 5, "class_prior must be non-negative and sum to 1"),
    ],
)
def test_bad_parameters(params, n, match):
    X, y = make_signal_subgraph_networks(20, n, n_signal_edges=2, random_state=0)
    with pytest.raises(ValueError, match=match):
        SignalSubgraphClassifier(**params).fit(X, y)


def test_bad_targets_and_prediction_inputs(networks):
    X, y, _ = networks
    with pytest.raises(ValueError, match="X holds 160 networks but y has 159 labels"):
        SignalSubgraphClassifier().fit(X, y[:-1])
    with pytest.raises(ValueError, match="only 1 class"):
        SignalSubgraphClassifier().fit(X, np.zeros(160))
    three = np.arange(160) % 3
    with pytest.raises(ValueError, match="test='fisher' needs exactly 2 classes, y has 3"):
        SignalSubgraphClassifier(test="fisher").fit(X, three)
    with pytest.raises(TypeError, match="directed must be True or False"):
        SignalSubgraphClassifier(directed="yes").fit(X, y)
    clf = SignalSubgraphClassifier(n_edges=3).fit(X, y)
    with pytest.raises(ValueError, match="on 13 vertices, but the classifier was fitted on .* 14"):
        clf.predict(X[:, :13, :13])
    with pytest.raises(ValueError, match="0/1"):
        clf.predict_proba(X * 3)


# -- plots ---------------------------------------------------------------------------
def _drawn(ax, role):
    return [
        a.bnclassify_edge for a in ax.get_children() if getattr(a, "bnclassify_role", "") == role
    ]


def test_plot_signal_edges_draws_the_estimated_and_true_edges(networks, tmp_path):
    X, y, truth = networks
    clf = SignalSubgraphClassifier(n_edges=10, n_vertices_signal=2).fit(X, y)
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 6))
    assert plot_signal_edges(clf, true_edges=truth.signal_edges, ax=left) is left
    assert _drawn(left, "signal") == clf.signal_edges_
    assert sorted(_drawn(left, "true")) == truth.signal_edges
    image = left.get_images()[0].get_array()
    expected = np.zeros((14, 14))
    for i, j in clf.signal_edges_:
        expected[i, j] = expected[j, i] = 1
    np.testing.assert_array_equal(image, expected)
    assert left.recovered == len(set(clf.signal_edges_) & set(truth.signal_edges))
    assert f"{left.recovered} of 8 true signal edges recovered" in left.get_title()

    plot_signal_edges(clf, significance=True, vertex_labels=[f"r{v}" for v in range(14)], ax=right)
    shown = right.get_images()[0].get_array()
    i, j = clf.signal_edges_[0]
    assert shown[i, j] == pytest.approx(-np.log10(clf.pvalues_[i, j]))
    assert right.get_xticklabels()[3].get_text() == "r3"
    fig.savefig(tmp_path / "signal_edges.png")
    assert (tmp_path / "signal_edges.png").stat().st_size > 10_000
    plt.close(fig)


def test_plot_signal_edge_probabilities_shows_edge_prob(networks, tmp_path):
    X, y, truth = networks
    clf = SignalSubgraphClassifier(n_edges=6).fit(X, y)
    ax = plot_signal_edge_probabilities(clf, true_probabilities=truth.probabilities)
    rows, cols = np.array(clf.signal_edges_).T
    dots = {c.get_label(): c.get_offsets() for c in ax.collections if c.get_label()}
    for k, label in enumerate(clf.classes_):
        offsets = dots[f"class {label}"]
        np.testing.assert_allclose(offsets[:, 0], clf.edge_prob_[k, rows, cols])
        np.testing.assert_allclose(offsets[:, 1], np.arange(6))
        np.testing.assert_allclose(
            dots[f"true, class {label}"][:, 0], truth.probabilities[k, rows, cols]
        )
    i, j = clf.signal_edges_[0]
    assert ax.get_yticklabels()[0].get_text().startswith(f"{i}–{j}")
    ax.figure.savefig(tmp_path / "probabilities.png")
    plt.close(ax.figure)


def test_plot_errors(networks):
    X, y, _ = networks
    clf = SignalSubgraphClassifier(n_edges=3).fit(X, y)
    with pytest.raises(ValueError, match="vertex_labels has 2 entries but the networks have 14"):
        plot_signal_edges(clf, vertex_labels=["a", "b"])
    with pytest.raises(ValueError, match="true_probabilities must have shape \\(2, 14, 14\\)"):
        plot_signal_edge_probabilities(clf, true_probabilities=np.zeros((2, 3, 3)))
    with pytest.raises(NotFittedError):
        plot_signal_edges(SignalSubgraphClassifier())
    with pytest.raises(TypeError, match="Expected a SignalSubgraphClassifier"):
        plot_signal_edge_probabilities(BernoulliNB())
    plt.close("all")


def test_plots_are_public_in_bnclassify_plotting(networks):
    from bnclassify import plotting

    X, y, _ = networks
    clf = SignalSubgraphClassifier(n_edges=4).fit(X, y)
    assert plotting.plot_signal_edges is plot_signal_edges
    assert plotting.plot_signal_edge_probabilities is plot_signal_edge_probabilities
    ax = plotting.plot_signal_edges(clf)
    assert plotting.drawn_edges(ax, role="signal") == clf.signal_edges_
    plt.close("all")
