"""BMATAN against a brute force that enumerates every labelled spanning tree.

The reference below shares no code with the estimator: it decodes every
Prüfer sequence into a tree, scores each tree's BDeu marginal likelihood and
posterior predictive straight from counts of the raw rows, and averages.
"""

import itertools
import re

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from _checks import parametrize_with_checks
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy.special import gammaln, logsumexp

from bnclassify import BMATAN
from bnclassify.classifiers._bma import edge_marginals, log_tree_sum
from bnclassify.datasets import load_car


# -- the reference ---------------------------------------------------------------------------
def prufer_trees(m):
    """Every labelled tree on m nodes, as a list of edges (m^(m-2) of them)."""
    trees = []
    for seq in itertools.product(range(m), repeat=m - 2):
        degree = [1] * m
        for v in seq:
            degree[v] += 1
        edges = []
        for v in seq:
            leaf = min(u for u in range(m) if degree[u] == 1)
            edges.append((leaf, v))
            degree[leaf] -= 1
            degree[v] -= 1
        u, w = [k for k in range(m) if degree[k] == 1]
        edges.append((u, w))
        trees.append(edges)
    return trees


def parents_from_root(edges, m):
    """Parent of each node with the tree rooted at node 0 (-1 for the root)."""
    neighbours = {v: [] for v in range(m)}
    for u, v in edges:
        neighbours[u].append(v)
        neighbours[v].append(u)
    parent, stack = [-1] * m, [0]
    seen = {0}
    while stack:
        u = stack.pop()
        for v in neighbours[u]:
            if v not in seen:
                seen.add(v)
                parent[v] = u
                stack.append(v)
    return parent


def encode(train, test):
    """Integer codes by sorted training categories; NaN in test -> -1."""
    cards, tr, te = [], [], []
    for col in train.columns:
        cats = sorted(train[col].unique())
        lookup = {c: k for k, c in enumerate(cats)}
        cards.append(len(cats))
        tr.append([lookup[v] for v in train[col]])
        te.append([lookup[v] if v in lookup else -1 for v in test[col]])
    return np.array(tr).T, np.array(te).T, cards


def brute_force(train, y_train, test, s, prior_weights):
    """(log evidence, edge posterior, predict_proba) by enumerating every tree."""
    x, xt, cards = encode(train, test)
    classes = sorted(pd.unique(y_train))
    yc = np.array([classes.index(v) for v in y_train])
    C, m = len(classes), x.shape[1]
    n_c = np.bincount(yc, minlength=C)
    log_ml_class = gammaln(s) - gammaln(s + len(yc)) + np.sum(gammaln(s / C + n_c) - gammaln(s / C))
    theta_c = (n_c + s / C) / (len(yc) + s)

    def family(i, j):
        """(log ML, CPT) of feature i given the class and parent j (-1: none)."""
        rj = 1 if j < 0 else cards[j]
        counts = np.zeros((C, rj, cards[i]))
        np.add.at(counts, (yc, 0 if j < 0 else x[:, j], x[:, i]), 1.0)
        a = s / (C * rj * cards[i])
        log_ml = np.sum(gammaln(a + counts) - gammaln(a)) + np.sum(
            gammaln(a * cards[i]) - gammaln(a * cards[i] + counts.sum(axis=2))
        )
        cpt = (counts + a) / (counts.sum(axis=2, keepdims=True) + a * cards[i])
        return log_ml, cpt

    fam = {(i, j): family(i, j) for i in range(m) for j in [-1, *range(m)] if i != j}
    trees = prufer_trees(m)
    log_prior = np.array([sum(prior_weights[u, v] for u, v in t) for t in trees])
    log_prior -= logsumexp(log_prior)
    log_ml = np.empty(len(trees))
    joint = np.zeros((len(trees), len(xt), C))
    grids = [list(range(r)) for r in cards]
    for k, t in enumerate(trees):
        parent = parents_from_root(t, m)
        log_ml[k] = log_ml_class + sum(fam[(i, parent[i])][0] for i in range(m))
        for row, values in enumerate(xt):
            # sum over every completion of the missing cells (one when none is missing)
            options = [grids[i] if values[i] < 0 else [values[i]] for i in range(m)]
            total = np.zeros(C)
            for full in itertools.product(*options):
                p = theta_c.copy()
                for i in range(m):
                    j = parent[i]
                    cpt = fam[(i, j)][1]
                    p *= cpt[:, 0 if j < 0 else full[j], full[i]]
                total += p
            joint[k, row] = total
    log_post = log_prior + log_ml
    evidence = logsumexp(log_post)
    post = np.exp(log_post - evidence)
    edges = np.zeros((m, m))
    for k, t in enumerate(trees):
        for u, v in t:
            edges[u, v] += post[k]
            edges[v, u] += post[k]
    predictive = np.einsum("t,tnc->nc", post, joint)
    return evidence, edges, predictive / predictive.sum(axis=1, keepdims=True)


@pytest.fixture(scope="module")
def car_sample():
    X, y = load_car(return_X_y=True)
    rng = np.random.default_rng(0)
    order = rng.permutation(len(X))
    train, test = order[:150], order[150:190]
    X_train, y_train = X.iloc[train].reset_index(drop=True), y.iloc[train].reset_index(drop=True)
    X_test = X.iloc[test].reset_index(drop=True)
    known = np.all([X_test[c].isin(X_train[c]) for c in X.columns], axis=0)
    return X_train, y_train, X_test[known].reset_index(drop=True)


def random_contacts(m, seed=1):
    rng = np.random.default_rng(seed)
    upper = np.triu(rng.poisson(3.0, size=(m, m)).astype(float), 1)
    return upper + upper.T


@pytest.mark.parametrize("prior", ["uniform", "contact"])
def test_matches_enumeration_of_all_trees(car_sample, prior):
    X, y, X_test = car_sample
    m = X.shape[1]
    s = 1.0
    if prior == "uniform":
        model = BMATAN(equivalent_sample_size=s).fit(X, y)
        weights = np.zeros((m, m))
    else:
        contacts = random_contacts(m)
        model = BMATAN(equivalent_sample_size=s, contact_matrix=contacts, contact_prior=3.0)
        model.fit(X, y)
        weights = 3.0 * contacts / contacts.max()
    evidence, edges, proba = brute_force(X, y, X_test, s, weights)
    spread = edges[np.triu_indices(m, 1)]
    assert ((spread > 0.05) & (spread < 0.95)).sum() >= 3  # the posterior is not one tree
    np.testing.assert_allclose(model.log_evidence_, evidence, rtol=0, atol=1e-9)
    np.testing.assert_allclose(model.edge_posterior_.to_numpy(), edges, rtol=0, atol=1e-9)
    np.testing.assert_allclose(model.predict_proba(X_test), proba, rtol=0, atol=1e-9)
    assert list(model.edge_posterior_.columns) == list(X.columns)


def test_missing_cells_summed_out_exactly(car_sample):
    X, y, X_test = car_sample
    rows = X_test.iloc[:6].copy()
    rows.iloc[0, 2] = np.nan
    rows.iloc[1, [0, 3]] = np.nan
    rows.iloc[2, [1, 4, 5]] = np.nan
    model = BMATAN(equivalent_sample_size=2.0).fit(X, y)
    _, _, proba = brute_force(X, y, rows, 2.0, np.zeros((6, 6)))
    np.testing.assert_allclose(model.predict_proba(rows), proba, rtol=0, atol=1e-9)


def test_unit_ratios_for_a_missing_cell_are_not_exact(car_sample):
    """Why missing cells are enumerated: u = 1 for a missing feature is exact only at
    leaves, so the shortcut differs from the exact sum where the feature is inner."""
    X, y, X_test = car_sample
    model = BMATAN().fit(X, y)
    row = X_test.iloc[[0]].copy()
    row.iloc[0, 3] = np.nan
    exact = model.predict_proba(row)
    params = model._params
    codes = model.encode(row)[0]
    cells = np.where(codes >= 0, codes + params["offsets"][:-1], 0)
    seen = codes >= 0
    ratios = params["log_ratio"][:, cells[:, None], cells[None, :]] * np.outer(seen, seen)
    joint = params["log_class"] + (params["log_single"][:, cells] * seen).sum(axis=1)
    joint = joint + log_tree_sum(ratios + model._log_weights)
    shortcut = np.exp(joint - logsumexp(joint))
    assert np.abs(shortcut - exact[0]).max() > 1e-6


def test_edge_weights_are_symmetric_in_family_form(car_sample):
    """ML(i | C, j) / ML(i | C) == ML(j | C, i) / ML(j | C) under BDeu."""
    X, y, _ = car_sample
    x, _, cards = encode(X, X.iloc[:1])
    yc = pd.factorize(y, sort=True)[0]
    C, s = yc.max() + 1, 1.0

    def log_ml(i, j):
        rj = 1 if j < 0 else cards[j]
        counts = np.zeros((C, rj, cards[i]))
        np.add.at(counts, (yc, 0 if j < 0 else x[:, j], x[:, i]), 1.0)
        a = s / (C * rj * cards[i])
        return np.sum(gammaln(a + counts) - gammaln(a)) + np.sum(
            gammaln(a * cards[i]) - gammaln(a * cards[i] + counts.sum(axis=2))
        )

    model = BMATAN(equivalent_sample_size=s).fit(X, y)
    for i, j in itertools.combinations(range(x.shape[1]), 2):
        w_ij = log_ml(i, j) - log_ml(i, -1)
        w_ji = log_ml(j, i) - log_ml(j, -1)
        assert w_ij == pytest.approx(w_ji, abs=1e-9)
        assert model.log_edge_weights_.iloc[i, j] == pytest.approx(w_ij, abs=1e-9)


def test_tree_sums_and_edge_marginals_against_enumeration():
    rng = np.random.default_rng(3)
    m = 5
    upper = np.triu(rng.normal(scale=3.0, size=(m, m)), 1)
    log_w = upper + upper.T
    trees = prufer_trees(m)
    scores = np.array([sum(log_w[u, v] for u, v in t) for t in trees])
    assert log_tree_sum(log_w) == pytest.approx(logsumexp(scores), abs=1e-10)
    post = np.exp(scores - logsumexp(scores))
    expected = np.zeros((m, m))
    for p, t in zip(post, trees, strict=True):
        for u, v in t:
            expected[u, v] += p
            expected[v, u] += p
    np.testing.assert_allclose(edge_marginals(log_w), expected, atol=1e-10)
    assert log_tree_sum(np.zeros((7, 7))) == pytest.approx(5 * np.log(7))  # Cayley


@pytest.mark.parametrize("spread", [1e3, 2e4])
def test_tree_sums_of_weights_beyond_the_float_range_against_enumeration(spread):
    """Issue 32: weights spanning thousands of nats (BDeu on many rows) underflowed in the
    column-scaled elimination, whose zero pivots raised LinAlgError: Singular matrix."""
    rng = np.random.default_rng(4)
    m = 5
    upper = np.triu(rng.normal(size=(m, m)), 1) * spread
    log_w = upper + upper.T
    trees = prufer_trees(m)
    scores = np.array([sum(log_w[u, v] for u, v in t) for t in trees])
    assert log_tree_sum(log_w) == pytest.approx(logsumexp(scores), rel=1e-12)
    stacked = np.stack([log_w / spread, log_w])  # batched: only the second is redone
    np.testing.assert_allclose(
        log_tree_sum(stacked), [log_tree_sum(log_w / spread), logsumexp(scores)], rtol=1e-12
    )
    post = np.exp(scores - logsumexp(scores))
    expected = np.zeros((m, m))
    for p, t in zip(post, trees, strict=True):
        for u, v in t:
            expected[u, v] += p
            expected[v, u] += p
    np.testing.assert_allclose(edge_marginals(log_w), expected, atol=1e-10)


def test_a_disconnected_graph_has_no_spanning_tree():
    log_w = np.full((4, 4), -np.inf)
    log_w[:2, :2] = log_w[2:, 2:] = 0.0
    assert log_tree_sum(log_w) == -np.inf
    with pytest.raises(ValueError, match="disconnected"):
        edge_marginals(log_w)


def _deterministic_pairs(n, seed=0):
    """mushroom's case: columns that copy one another exactly, so BDeu edge weights span
    thousands of nats, beside noise columns."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    a = rng.integers(0, 4, n)
    columns = {"a": a, "b": (a + y) % 4, "c": (2 * a + y) % 4, "d": rng.integers(0, 3, n)}
    X = pd.DataFrame({k: [f"v{v}" for v in c] for k, c in columns.items()})
    return X, pd.Series(np.where(y == 1, "p", "e"))


def test_peaked_edge_weights_fit_and_predict_as_the_enumeration():
    """Issue 32: LinAlgError: Singular matrix on mushroom (all categorical), diabetes and
    letter. A small table made from the case, against every tree enumerated."""
    X, y = _deterministic_pairs(3000)
    model = BMATAN(equivalent_sample_size=1.0).fit(X, y)
    weights = model.log_edge_weights_.to_numpy()
    assert weights.max() - weights.min() > 1000  # beyond the float range of exp
    test = X.iloc[:8].copy()
    test.iloc[0, 0] = np.nan
    evidence, edges, proba = brute_force(X, y, test, 1.0, np.zeros((4, 4)))
    assert model.log_evidence_ == pytest.approx(evidence, rel=1e-12)
    np.testing.assert_allclose(model.edge_posterior_.to_numpy(), edges, atol=1e-9)
    np.testing.assert_allclose(model.predict_proba(test), proba, atol=1e-9)


def test_rows_beyond_the_exact_budget_are_summed_out_as_leaves_with_a_warning():
    """flags: a name column unseen in every test row; sonar: 60 columns unseen in a row
    (itertools.product over them ran out of memory). Past MAX_EXACT_WORK the missing
    features are summed out as leaves: the class prior when every cell is missing."""
    from bnclassify.classifiers._bma import MAX_EXACT_WORK

    rng = np.random.default_rng(0)
    n, m = 120, 40
    y = rng.integers(0, 2, n)
    X = pd.DataFrame({f"f{j}": (rng.integers(0, 3, n) + y * (j % 2)) % 3 for j in range(m)})
    X["name"] = [f"n{k // 2}" for k in range(n)]  # 50 values in training, new after
    model = BMATAN(equivalent_sample_size=5.0, handle_unknown="marginalize")
    model.fit(X.iloc[:100], y[:100])
    assert len(model.categories_[-1]) * (m + 1) ** 3 > MAX_EXACT_WORK
    test = X.iloc[100:]
    with pytest.warns(UserWarning, match=r"20 row\(s\) as leaves .*'name'"):
        got = model.predict_proba(test)
    codes = model.encode(test)
    leaf = model._complete_joint(codes, leaves=codes < 0)
    np.testing.assert_allclose(got, np.exp(leaf - logsumexp(leaf, axis=1, keepdims=True)))
    empty = pd.DataFrame(np.nan, index=[0], columns=X.columns)
    with pytest.warns(UserWarning, match="as leaves"):
        prior = model.predict_proba(empty)
    np.testing.assert_allclose(prior[0], np.exp(model._params["log_class"]), rtol=1e-12)


def test_a_prediction_past_the_slow_budget_states_its_cost_up_front(monkeypatch):
    """arrhythmia: 279 features, 13 classes, one 279 x 279 determinant per row and class (20 s
    for 226 rows). Past SLOW_PREDICT_WORK multiply-adds predict warns first, with the number
    of determinants (complete rows, and every joint state of an exactly summed-out row); the
    answer is the same."""
    from bnclassify.classifiers import _bma

    rng = np.random.default_rng(0)
    n, m = 60, 6
    y = rng.integers(0, 2, n)
    X = pd.DataFrame({f"f{j}": (rng.integers(0, 3, n) + y) % 3 for j in range(m)})
    model = BMATAN().fit(X, y)
    test = X.iloc[:10].astype(float)
    test.iloc[0, 0] = np.nan  # summed out exactly: 3 joint states, 3 determinants per class
    quiet = model.predict_proba(test)  # the suite turns warnings into errors
    monkeypatch.setattr(_bma, "SLOW_PREDICT_WORK", 2 * 12 * m**3 / 3 - 1)
    with pytest.warns(UserWarning, match=r"takes 24 determinants of 6 x 6 .* multiply-adds"):
        loud = model.predict_proba(test)
    np.testing.assert_array_equal(loud, quiet)


def test_pair_tables_too_large_are_refused_up_front_with_their_size():
    """waveform5000: 40 float columns read as categories asked numpy for a 22,236 x 22,236
    array (MemoryError); columns of that many categories are refused before any table is
    built (floats are binned now: here text columns of one category per row)."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(2_000, 3)), columns=["u", "v", "w"]).astype(str)
    with pytest.raises(ValueError, match=r"2 x 6000 x 6000 tables .*'u' \(2000\).*Drop"):
        BMATAN().fit(X, rng.integers(0, 2, 2_000))


def test_continuous_columns_are_cut_into_mdl_bins_as_a_discretiser_would():
    """iris: each float was a category of its own (1.0 on the training rows, 0.707 in
    10-fold CV); now the kinds rule's continuous columns are MDL bins, the very model of
    make_pipeline(MDLDiscretizer(), BMATAN()), and the bins persist."""
    from sklearn.datasets import load_iris
    from sklearn.pipeline import make_pipeline

    from bnclassify import MDLDiscretizer
    from bnclassify.io import dump, load

    X, y = load_iris(return_X_y=True, as_frame=True)
    X = X.iloc[::3].assign(colour=np.where(np.arange(50) % 3, "red", "blue"))
    y = y.iloc[::3].astype(str).to_numpy()
    X.iloc[4, 0] = np.nan
    model = BMATAN().fit(X, y)
    assert [c is None for c in model.cut_points_] == [False] * 4 + [True]
    # a category per bin, no longer one per training value
    assert [len(c) for c in model.categories_[:4]] == [len(c) + 1 for c in model.cut_points_[:4]]
    piped = make_pipeline(MDLDiscretizer(), BMATAN()).fit(X, y)
    for mine, theirs in zip(model.cut_points_, piped[0].cut_points_, strict=True):
        np.testing.assert_array_equal(
            mine if mine is not None else [], theirs if theirs is not None else []
        )
    np.testing.assert_allclose(model.predict_proba(X), piped.predict_proba(X), atol=1e-12)
    path = f"{__import__('tempfile').mkdtemp()}/bmatan.bnc"
    dump(model, path)
    np.testing.assert_array_equal(load(path).predict_proba(X), model.predict_proba(X))
    with pytest.raises(ValueError, match="sepal length.*not numbers"):
        model.predict(X.astype({"sepal length (cm)": object}).assign(**{"sepal length (cm)": "x"}))


def test_auto_prior_maximises_the_evidence(car_sample):
    X, y, _ = car_sample
    contacts = random_contacts(X.shape[1], seed=4)
    model = BMATAN(contact_matrix=contacts, contact_prior="auto").fit(X, y)
    grid = model.log_evidence_grid_
    assert model.contact_prior_ == grid.idxmax()
    assert model.log_evidence_ == grid.max()
    assert model.log_bayes_factor_ == pytest.approx(grid.max() - grid[0.0])
    fixed = BMATAN(contact_matrix=contacts, contact_prior=model.contact_prior_).fit(X, y)
    assert fixed.log_evidence_ == pytest.approx(model.log_evidence_, abs=1e-9)
    uniform = BMATAN().fit(X, y)
    assert uniform.log_bayes_factor_ == 0.0
    assert grid[0.0] == pytest.approx(uniform.log_evidence_, abs=1e-9)


def test_auto_equivalent_sample_size_is_the_evidence_maximum(car_sample):
    X, y, X_test = car_sample
    contacts = random_contacts(X.shape[1], seed=4)
    model = BMATAN(equivalent_sample_size="auto", contact_matrix=contacts, contact_prior="auto")
    model.fit(X, y)
    by_ess = model.log_evidence_by_ess_
    assert model.equivalent_sample_size_ == by_ess.idxmax()
    assert model.log_evidence_ == by_ess.max()
    fixed = BMATAN(
        equivalent_sample_size=model.equivalent_sample_size_,
        contact_matrix=contacts,
        contact_prior=model.contact_prior_,
    ).fit(X, y)
    assert fixed.log_evidence_ == pytest.approx(model.log_evidence_, abs=1e-9)
    np.testing.assert_allclose(model.predict_proba(X_test), fixed.predict_proba(X_test))
    for s in by_ess.index:
        grid = BMATAN(equivalent_sample_size=s, contact_matrix=contacts, contact_prior="auto")
        assert grid.fit(X, y).log_evidence_ == pytest.approx(by_ess[s], abs=1e-9)


def test_map_tree_and_network(car_sample):
    X, y, X_test = car_sample
    model = BMATAN().fit(X, y)
    features = list(X.columns)
    arcs = [(u, v) for u, v in model.structure_.edges if u != model.class_node_]
    assert len(arcs) == len(features) - 1
    assert all((model.class_node_, f) in model.structure_.edges for f in features)
    # the MAP tree is the tree of largest posterior weight: check against enumeration
    log_w = model.log_edge_weights_.to_numpy()
    best = max(prufer_trees(len(features)), key=lambda t: sum(log_w[u, v] for u, v in t))
    assert {frozenset(features[k] for k in e) for e in best} == {frozenset(a) for a in arcs}
    network = model.network_
    assert set(network.edges) == set(model.structure_.edges)
    assert network.check_model()


def test_many_features_stay_finite():
    rng = np.random.default_rng(0)
    n, m = 300, 120
    z = rng.integers(0, 2, size=n)
    X = np.empty((n, m), dtype=int)
    X[:, 0] = (z + (rng.random(n) < 0.2)) % 3
    for j in range(1, m):
        X[:, j] = np.where(rng.random(n) < 0.8, X[:, j - 1], rng.integers(0, 3, size=n))
    model = BMATAN(contact_matrix=np.eye(m, k=1) + np.eye(m, k=-1), contact_prior=5.0)
    model.fit(X, z)
    proba = model.predict_proba(X[:50])
    assert np.isfinite(proba).all()
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert np.isfinite(model.log_evidence_)
    posterior = model.edge_posterior_.to_numpy()
    assert np.isfinite(posterior).all()
    assert posterior.sum() / 2 == pytest.approx(m - 1, abs=1e-6)


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"equivalent_sample_size": 0}, "equivalent_sample_size"),
        ({"equivalent_sample_size": "1"}, "equivalent_sample_size"),
        ({"equivalent_sample_size": -2.0}, "equivalent_sample_size"),
        ({"contact_prior": -1}, "contact_prior"),
        ({"contact_prior": "max"}, "contact_prior"),
        # 1e308 reached the spanning-tree sums as an unnamed log-weight error (campaign)
        (
            {"contact_prior": 1e308, "contact_matrix": np.ones((6, 6))},
            r"contact_prior must .* 1e\+308",
        ),
        ({"contact_prior": 2.0}, "contact_matrix"),
        ({"contact_prior": "auto"}, "contact_matrix"),
        ({"handle_unknown": "ignore"}, "handle_unknown"),
        ({"contact_matrix": np.ones((2, 2)), "contact_prior": 1.0}, "contact_matrix"),
    ],
)
def test_bad_parameters_name_themselves(car_sample, params, match):
    X, y, _ = car_sample
    with pytest.raises(ValueError, match=match):
        BMATAN(**params).fit(X, y)


def chain(features):
    m = len(features)
    return np.eye(m, k=1) + np.eye(m, k=-1)


@parametrize_with_checks(
    [
        BMATAN(),
        BMATAN(
            equivalent_sample_size="auto",
            contact_matrix=chain,
            contact_prior="auto",
            handle_unknown="marginalize",
        ),
    ]
)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)


def test_edge_posterior_figure_marks_both_trees(tmp_path):
    import matplotlib.pyplot as plt

    from bnclassify.datasets import load_p450
    from bnclassify.plotting import plot_edge_posterior
    from bnclassify.study import figures

    p450 = load_p450()
    model = BMATAN(contact_matrix=p450.contact_matrix, contact_prior=1.0)
    fig = plot_edge_posterior(model.fit(p450.data, p450.target))
    arcs = [(u, v) for u, v in model.structure_.edges if u != model.class_node_]
    assert fig.map_edges == sorted(
        tuple(sorted(a, key=list(p450.data.columns).index)) for a in arcs
    )
    assert len(fig.contact_edges) == 7
    outlined = {
        (p.bnclassify_edge, p.bnclassify_role)
        for p in fig.axes[0].patches
        if hasattr(p, "bnclassify_role")
    }
    assert {e for e, role in outlined if role == "posterior-map"} == set(fig.map_edges)
    for pair, value in fig.contact_tree_posterior.items():
        u, v = pair.split("-")
        assert value == model.edge_posterior_.loc[u, v]
    plt.close(fig)
    paths = figures.make_figures(tmp_path, names=["lactamase_edge_posterior"])
    assert [p.name for p in paths] == ["lactamase_edge_posterior.png"]


def test_edge_posterior_figure_without_contacts_draws_the_map_tree():
    import matplotlib.pyplot as plt

    from bnclassify.datasets import load_p450
    from bnclassify.plotting import plot_edge_posterior

    X, y = load_p450(return_X_y=True)
    model = BMATAN().fit(X, y)
    fig = plot_edge_posterior(model)
    assert len(fig.axes) >= 2 and fig.contact_edges == []
    arcs = [(u, v) for u, v in model.structure_.edges if u != model.class_node_]
    assert fig.map_edges == sorted(tuple(sorted(a, key=list(X.columns).index)) for a in arcs)
    drawn = {t.get_text() for t in fig.axes[1].texts}
    assert set(X.columns) <= drawn  # the MAP tree's nodes are on the second panel
    assert f"s = {model.equivalent_sample_size_:g}" in fig._suptitle.get_text()
    assert "λ" not in fig._suptitle.get_text()  # no contact prior, no lambda
    plt.close(fig)


def test_edge_posterior_titles_state_the_priors():
    import matplotlib.pyplot as plt

    from bnclassify.datasets import load_lactamase
    from bnclassify.plotting import plot_edge_posterior

    bunch = load_lactamase()
    model = BMATAN(equivalent_sample_size=5.0, contact_matrix=bunch.contact_matrix)
    model.set_params(contact_prior=1.5).fit(bunch.data, bunch.target)
    fig = plot_edge_posterior(model)
    for text in (fig._suptitle.get_text(), fig.axes[0].get_title()):
        assert "s = 5" in text and "λ = 1.5" in text, text
    plt.close(fig)


def test_default_equivalent_sample_size_is_the_evidence_maximum():
    from bnclassify.datasets import load_p450

    X, y = load_p450(return_X_y=True)
    model = BMATAN().fit(X, y)
    evidence = model.log_evidence_by_ess_
    assert model.equivalent_sample_size_ == evidence.idxmax()
    assert model.log_evidence_ == evidence.max() > evidence[1.0]


def test_study_compares_the_bma_rows():
    from bnclassify.datasets import load_p450
    from bnclassify.study import study_models

    with_contacts = study_models(load_p450().contact_matrix)
    bma = [name for name in with_contacts if name.startswith("BMA")]
    assert bma == ["BMA TAN", "BMA TAN (contact prior)", "BMA TAN (s = 1, contact prior)"]
    assert with_contacts["BMA TAN (contact prior)"].contact_prior == "auto"
    assert with_contacts["BMA TAN"].equivalent_sample_size == "auto"
    assert with_contacts["BMA TAN (s = 1, contact prior)"].equivalent_sample_size == 1.0
    assert [n for n in study_models(None) if n.startswith("BMA")] == ["BMA TAN"]


@pytest.mark.parametrize(
    ("weights", "names"),
    [
        ([[0.0, 1.0], [2.0, 0.0]], "symmetric: weight (0, 1) is 1.0 but (1, 0) is 2.0"),
        ([[0.0, np.nan], [np.nan, 0.0]], "weight (0, 1) is nan"),
        ([[0.0, np.inf], [np.inf, 0.0]], "weight (0, 1) is inf"),
        ([[0.0, 1e308], [1e308, 0.0]], "weight (0, 1) is 1e+308"),
        (np.zeros((2, 3)), "square matrices"),
    ],
)
def test_tree_sums_refuse_weights_naming_no_graph(weights, names):
    # the campaign's cases: an asymmetric matrix was read by one triangle (a wrong answer),
    # nan, inf and huge weights ended in numpy RuntimeWarnings
    for function in (log_tree_sum, edge_marginals):
        with pytest.raises(ValueError, match=re.escape(names)):
            function(np.array(weights))


def test_tree_sums_of_extreme_but_valid_weights_stay_exact():
    log_w = np.array([[0.0, 1e300, -1e300], [1e300, 0.0, 1e300], [-1e300, 1e300, 0.0]])
    assert log_tree_sum(log_w) == 2e300  # the path 0-1-2 alone
    np.testing.assert_array_equal(edge_marginals(log_w), [[0, 1, 0], [1, 0, 1], [0, 1, 0]])


def test_single_category_columns_summed_out_once_match_the_enumeration(car_sample):
    """Columns of one category (a binned column without a cut: most of arrhythmia's) have
    every ratio 1, so they are eliminated from every tree once (a Schur complement); a
    missing cell of theirs is their category. Same probabilities as every tree enumerated."""
    X, y, X_test = car_sample
    X, X_test = X.iloc[:, :4].copy(), X_test.iloc[:8, :4].copy()
    X.insert(1, "flat", "a")
    X["same"] = "b"
    X_test.insert(1, "flat", "a")
    X_test["same"] = "b"
    X_test.iloc[0, 1] = np.nan
    X_test.iloc[1, [1, 5]] = np.nan
    X_test.iloc[2, [1, 3]] = np.nan
    model = BMATAN(equivalent_sample_size=2.0).fit(X, y)
    assert model._tree_reduction()[0].tolist() == [1, 5]
    _, _, proba = brute_force(X, y, X_test, 2.0, np.zeros((6, 6)))
    np.testing.assert_allclose(model.predict_proba(X_test), proba, rtol=0, atol=1e-9)


def test_single_category_columns_summed_out_once_match_the_full_determinants():
    """The log joint itself, on 30 columns of which 12 have one category, against one
    determinant over every column per row and class (the computation before the reduction)."""
    rng = np.random.default_rng(5)
    n, m = 200, 30
    y = rng.integers(0, 3, n)
    X = pd.DataFrame({f"f{j}": (rng.integers(0, 3, n) + y * (j % 3)) % 4 for j in range(m)})
    X.iloc[:, ::5] = 0  # 6 constant columns ...
    X.iloc[:, 1::5] = 7  # ... and 6 more
    contacts = random_contacts(m, seed=2)
    model = BMATAN(contact_matrix=contacts, contact_prior=2.0).fit(X.iloc[:150], y[:150])
    constant, kept, _, _ = model._tree_reduction()
    assert len(constant) == 12 and len(kept) == m - 12
    codes = model.encode(X.iloc[150:])
    params = model._params
    cells = codes + params["offsets"][:-1]
    ratios = params["log_ratio"][:, cells[:, :, None], cells[:, None, :]]  # (C, n, m, m)
    full = log_tree_sum(np.swapaxes(ratios, 0, 1) + model._log_weights) - model._log_norm
    expected = params["log_class"] + params["log_single"][:, cells].sum(axis=2).T + full
    np.testing.assert_allclose(model._complete_joint(codes), expected, rtol=1e-11, atol=1e-9)


@pytest.mark.parametrize("spread", [3.0, 200.0])
def test_edge_marginals_are_the_derivatives_of_the_log_tree_sum(spread):
    """P(uv) = d log Z / d log A_uv, by central differences of log_tree_sum, on 40 nodes:
    one elimination for every edge, and the peaked edges (spread 200: many of them past
    the one-root formula's error bound) rooted at one of their ends."""
    rng = np.random.default_rng(7)
    m, h = 40, 1e-5
    log_w = rng.normal(0, spread, (m, m))
    log_w = (log_w + log_w.T) / 2
    got = edge_marginals(log_w)
    assert got[np.triu_indices(m, 1)].sum() == pytest.approx(m - 1, abs=1e-9)
    for u, v in rng.choice(m, (12, 2), replace=False):
        step = np.zeros((m, m))
        step[u, v] = step[v, u] = h
        slope = (log_tree_sum(log_w + step) - log_tree_sum(log_w - step)) / (2 * h)
        assert got[u, v] == pytest.approx(slope, abs=1e-7)


def test_completions_of_equal_terms_are_scored_once_with_their_count():
    """zoo: the animal name, unseen in every test row, is summed out exactly over its 50
    training values; for each class the names never seen with it give equal completions,
    scored once and weighted by their number. Against every completion scored."""
    rng = np.random.default_rng(4)
    n, m = 90, 6
    y = rng.integers(0, 3, n)
    X = pd.DataFrame({f"f{j}": (rng.integers(0, 3, n) + y * j) % 3 for j in range(m)})
    X["name"] = [f"n{k // 2}" for k in range(n)]  # 30 values in training, new after
    model = BMATAN(equivalent_sample_size=2.0, handle_unknown="marginalize")
    model.fit(X.iloc[:60], y[:60])
    test = X.iloc[60:].copy()  # every name unseen: missing
    test.iloc[::3, 1] = np.nan
    codes = model.encode(test)
    cards = np.diff(model._params["offsets"])
    expected = []
    for row in codes:
        missing = np.flatnonzero(row < 0)
        grid = np.indices(cards[missing]).reshape(len(missing), -1).T
        filled = np.repeat(row[None], len(grid), axis=0)
        filled[:, missing] = grid
        expected.append(logsumexp(model._complete_joint(filled), axis=0))
    expected = np.array(expected)
    expected = np.exp(expected - logsumexp(expected, axis=1, keepdims=True))
    assert len(model._completions(np.array([m]), 0)[0]) < 30  # lumped
    np.testing.assert_allclose(model.predict_proba(test), expected, rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("spread", [1.0, 30.0, 3e3])
def test_tree_sums_by_states_equal_the_sums_of_the_built_graphs(spread):
    """The fused per-state sums (one column scaling for every graph, the scaled elimination,
    the log-space one where it underflows: spread 3e3) against log_tree_sum of each graph's
    weights built in full: ratios by the states of both ends, none on a node of state -1, a
    fill added, absent edges."""
    from bnclassify.spanning_trees import log_tree_sums_by_states

    rng = np.random.default_rng(5)
    n, n_classes, m, n_states = 4, 3, 7, 5
    upper = np.triu(rng.normal(size=(m, m)) * spread, 1)
    upper[rng.random((m, m)) < 0.2] = -np.inf
    log_w = upper + upper.T
    fill = np.triu(rng.normal(size=(m, m)) - 2.0, 1)
    fill = np.where(np.triu(np.ones((m, m), bool), 1), fill, fill.T)
    np.fill_diagonal(fill, -np.inf)
    log_ratio = rng.normal(size=(n_classes, n_states, n_states))
    log_ratio = (log_ratio + np.swapaxes(log_ratio, 1, 2)) / 2
    states = rng.integers(-1, n_states, size=(n, n_classes, m))
    got = log_tree_sums_by_states(log_w, log_ratio, states, fill)
    expected = np.empty((n, n_classes))
    for r, c in itertools.product(range(n), range(n_classes)):
        s = states[r, c]
        terms = np.where((s[:, None] >= 0) & (s[None, :] >= 0), log_ratio[c][np.ix_(s, s)], 0.0)
        expected[r, c] = log_tree_sum(np.logaddexp(log_w + terms, fill))
    np.testing.assert_allclose(got, expected, rtol=1e-11, atol=1e-9)


def test_tree_sums_by_states_eliminate_one_triangle_only_of_symmetric_graphs(monkeypatch):
    """The one-triangle elimination is used when weights, fill and ratios are exactly
    symmetric, by column scales when they spread little, past SYMMETRIC_SPREAD by the
    bottleneck column scales while their error bound allows and by pairs beyond; the full
    one otherwise (ratios asymmetric by a rounding): the same sums every way."""
    from bnclassify import spanning_trees

    seen = []
    kernel = spanning_trees.tree_log_sums

    def spy(*args, scale=None, pairs=None):
        seen.append("columns" if scale is not None else "pairs" if pairs is not None else "full")
        return kernel(*args, scale=scale, pairs=pairs)

    monkeypatch.setattr(spanning_trees, "tree_log_sums", spy)
    rng = np.random.default_rng(3)
    m, n_states = 6, 3
    upper = np.triu(rng.normal(size=(m, m)), 1)
    log_w = upper + upper.T
    log_ratio = rng.normal(size=(2, n_states, n_states))
    log_ratio = (log_ratio + np.swapaxes(log_ratio, 1, 2)) / 2
    states = rng.integers(0, n_states, size=(3, 2, m))
    skewed = log_ratio.copy()
    skewed[0, 0, 1] = np.nextafter(skewed[0, 0, 1], 1.0)
    spread, wider = log_w.copy(), log_w.copy()
    spread[0, 1] = spread[1, 0] = 400.0
    wider[0, 1] = wider[1, 0] = 700.0
    for weights, ratio, path in (
        (log_w, log_ratio, "columns"),
        (log_w, skewed, "full"),
        (spread, log_ratio, "columns"),  # by bottlenecks
        (wider, log_ratio, "pairs"),
    ):
        got = spanning_trees.log_tree_sums_by_states(weights, ratio, states)
        assert seen.pop() == path
        expected = [
            [log_tree_sum(weights + ratio[c][np.ix_(s, s)]) for c, s in enumerate(row)]
            for row in states
        ]
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-9)


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(1, 3),
    n_classes=st.integers(1, 3),
    m=st.integers(2, 13),
    spread=st.sampled_from([1.0, 300.0, 3e3, 3e4]),
    absent=st.floats(0.0, 0.5),
    with_fill=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
@example(n=1, n_classes=1, m=2, spread=3e3, absent=0.0, with_fill=False, seed=0)
def test_tree_sums_by_pairs_equal_the_sums_of_the_built_graphs(
    n, n_classes, m, spread, absent, with_fill, seed
):
    """Weights spread by up to tens of thousands of nats (the column scales would leave
    every pivot to the log-space elimination): each entry scaled by its pair's widest-path
    bottleneck, none left to the log-space elimination, against log_tree_sum of each graph
    built in full (itself in log space), m around the panels of four, absent edges (also
    disconnected graphs: -inf), a fill, leaves (state -1)."""
    from bnclassify import spanning_trees

    redone = []

    def spy(stack, **kwargs):
        redone.append(len(stack))
        return log_tree_sum(stack, **kwargs)

    rng = np.random.default_rng(seed)
    n_states = 4
    upper = np.triu(rng.normal(size=(m, m)) * spread, 1)
    upper[rng.random((m, m)) < absent] = -np.inf
    log_w = upper + upper.T
    fill = None
    if with_fill:
        fill = np.triu(rng.normal(size=(m, m)) * spread, 1)
        fill[rng.random((m, m)) < 0.5] = -np.inf
        fill = fill + fill.T
        np.fill_diagonal(fill, -np.inf)
    log_ratio = rng.normal(size=(n_classes, n_states, n_states)) * 3.0
    log_ratio = (log_ratio + np.swapaxes(log_ratio, 1, 2)) / 2
    states = rng.integers(-1, n_states, size=(n, n_classes, m))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(spanning_trees, "log_tree_sum", spy)
        got = spanning_trees.log_tree_sums_by_states(log_w, log_ratio, states, fill)
    expected = np.empty((n, n_classes))
    for r, c in itertools.product(range(n), range(n_classes)):
        s = states[r, c]
        terms = np.where((s[:, None] >= 0) & (s[None, :] >= 0), log_ratio[c][np.ix_(s, s)], 0.0)
        built = log_w + terms if fill is None else np.logaddexp(log_w + terms, fill)
        expected[r, c] = log_tree_sum(built)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-9)
    assert not redone  # by pairs, none left to the log-space elimination


@settings(max_examples=30, deadline=None)
@given(
    m=st.integers(2, 14),
    spread=st.floats(1.0, 80.0),
    absent=st.floats(0.0, 0.6),
    seed=st.integers(0, 2**32 - 1),
)
def test_bottleneck_column_scales_keep_every_pivot_above_one_over_m(m, spread, absent, seed):
    """The claim the bottleneck scaling rests on: scaled by column ``k``'s largest widest-path
    bottleneck to a node left at step ``k``, the cancellation-free elimination's every pivot
    is at least ``1 / (m - 1)`` however far the weights spread (the pivots, times the
    scales, still give the sum over trees); and with ratios and the weights spread five
    times as far (past SYMMETRIC_SPREAD), the sums equal the log-space ones with none left
    to the log-space elimination."""
    from bnclassify import spanning_trees
    from bnclassify.spanning_trees import bottleneck_scales, widest_paths

    rng = np.random.default_rng(seed)
    upper = np.triu(rng.normal(size=(m, m)) * spread, 1)
    upper[np.triu(rng.random((m, m)) < absent, 1)] = -np.inf
    upper[np.arange(m - 1), np.arange(1, m)] = rng.normal(size=m - 1) * spread  # connected
    log_w = upper + upper.T
    np.fill_diagonal(log_w, -np.inf)
    log_b = bottleneck_scales(widest_paths(log_w))
    scaled = np.exp(log_w - log_b[None, :])
    pivots = spanning_trees.tree_pivots(scaled[None], 0.0)[0]
    assert (pivots >= (1 - 1e-12) / (m - 1)).all()
    got = np.log(pivots).sum() + log_b[1:].sum()
    assert got == pytest.approx(float(log_tree_sum(log_w)), rel=1e-12, abs=1e-9)

    redone = []

    def spy(stack, **kwargs):
        redone.append(len(stack))
        return log_tree_sum(stack, **kwargs)

    log_ratio = rng.normal(size=(3, 4, 4)) * 3.0
    log_ratio = (log_ratio + np.swapaxes(log_ratio, 1, 2)) / 2
    states = rng.integers(-1, 4, size=(2, 3, m))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(spanning_trees, "log_tree_sum", spy)
        sums = spanning_trees.log_tree_sums_by_states(5 * log_w, log_ratio, states)
    for r, c in itertools.product(range(2), range(3)):
        s = states[r, c]
        terms = np.where((s[:, None] >= 0) & (s[None, :] >= 0), log_ratio[c][np.ix_(s, s)], 0.0)
        expected = float(log_tree_sum(5 * log_w + terms))
        assert sums[r, c] == pytest.approx(expected, rel=1e-12, abs=1e-9)
    assert not redone


def test_bottleneck_error_bounds_grow_with_the_spread_and_the_smallest_ratio():
    from bnclassify.spanning_trees import BOTTLENECK_ERROR, bottleneck_error

    log_b = np.array([0.0, 300.0, 545.0])
    assert bottleneck_error(log_b, 0.0) < BOTTLENECK_ERROR
    assert bottleneck_error(log_b, 5.0) == bottleneck_error(log_b, 0.0)  # ratios above 1
    assert bottleneck_error(log_b, 0.0, 150.0) > BOTTLENECK_ERROR
    assert bottleneck_error(log_b, -150.0) > BOTTLENECK_ERROR
    assert bottleneck_error(log_b * 1.3, 0.0) > BOTTLENECK_ERROR
    assert bottleneck_error(log_b, -np.inf) > BOTTLENECK_ERROR
    assert bottleneck_error(np.array([]), 0.0) == 0.0


def test_tree_sums_of_states_shared_by_every_class_equal_the_repeated_states():
    """States of shape (n, 1, m) are every class's: the same sums as (n, C, m) repeats, on
    every path (column scales, pairs, full)."""
    from bnclassify.spanning_trees import log_tree_sums_by_states

    rng = np.random.default_rng(7)
    m, n_states, n_classes = 7, 4, 5
    log_ratio = rng.normal(size=(n_classes, n_states, n_states))
    symmetric = (log_ratio + np.swapaxes(log_ratio, 1, 2)) / 2
    states = rng.integers(-1, n_states, size=(6, 1, m))
    for spread, ratio in ((1.0, symmetric), (1e3, symmetric), (1.0, log_ratio)):
        upper = np.triu(rng.normal(size=(m, m)) * spread, 1)
        log_w = upper + upper.T
        got = log_tree_sums_by_states(log_w, ratio, states)
        repeated = log_tree_sums_by_states(log_w, ratio, np.repeat(states, n_classes, axis=1))
        np.testing.assert_array_equal(got, repeated)


def test_widest_paths_are_the_smallest_weights_on_the_maximum_spanning_tree_paths():
    from bnclassify.spanning_trees import widest_paths

    rng = np.random.default_rng(11)
    m = 9
    upper = np.triu(rng.normal(size=(m, m)) * 100.0, 1)
    upper[np.triu(rng.random((m, m)) < 0.3, 1)] = -np.inf
    upper[0, 1] = 1.0  # connected: a path 0 - 1 - ... - 8 of finite weights
    upper[np.arange(1, m - 1), np.arange(2, m)] = rng.normal(size=m - 2)
    log_w = upper + upper.T
    graph = nx.Graph()
    graph.add_weighted_edges_from(
        (u, v, log_w[u, v]) for u, v in itertools.combinations(range(m), 2) if log_w[u, v] > -np.inf
    )
    tree = nx.maximum_spanning_tree(graph)
    expected = np.full((m, m), -np.inf)
    for u, v in itertools.permutations(range(m), 2):
        path = nx.shortest_path(tree, u, v)
        expected[u, v] = min(tree[a][b]["weight"] for a, b in itertools.pairwise(path))
    np.testing.assert_array_equal(widest_paths(log_w), expected)


@pytest.fixture(scope="module")
def wide_sample():
    """Thousands of rows with strong dependencies and 8 classes: BDeu log weights spread by
    thousands of nats, past one scale per column (the pair-scaled elimination)."""
    from bnclassify.datasets import make_tree_classification

    X, y = make_tree_classification(
        4000, 5, n_categories=4, n_classes=8, concentration=0.15, random_state=4
    )
    letters = np.array(list("abcd"))
    frame = pd.DataFrame({f"f{j}": letters[X[:, j]] for j in range(5)}).astype(object)
    labels = pd.Series([f"c{k}" for k in y])
    return frame.iloc[:3980], labels.iloc[:3980], frame.iloc[3980:].reset_index(drop=True)


def test_widely_spread_weights_and_many_classes_predict_as_the_enumeration(wide_sample):
    """Test rows complete and with missing cells summed out exactly, against the
    enumeration of every tree."""
    from bnclassify.spanning_trees import SYMMETRIC_SPREAD

    X, y, test = wide_sample
    test = test.copy()
    test.iloc[1, 2] = np.nan
    test.iloc[2, [0, 3]] = np.nan
    test.iloc[3, [1, 2, 4]] = np.nan
    model = BMATAN(equivalent_sample_size=1.0).fit(X, y)
    top = np.where(np.eye(5, dtype=bool), -np.inf, model._log_weights).max(axis=0)
    assert top.max() - top.min() > SYMMETRIC_SPREAD
    _, _, proba = brute_force(X, y, test, 1.0, np.zeros((5, 5)))
    np.testing.assert_allclose(model.predict_proba(test), proba, rtol=0, atol=1e-9)


def test_fitted_pair_ratios_are_exactly_symmetric(car_sample):
    """BMATAN's log u(c, x_i, x_j) is symmetric in the two cells bit for bit (the sums it is
    made of round differently by axis): its per-row tree sums take the one-triangle path."""
    X, y, _ = car_sample
    log_ratio = BMATAN().fit(X, y)._params["log_ratio"]
    np.testing.assert_array_equal(log_ratio, np.swapaxes(log_ratio, 1, 2))


@pytest.mark.parametrize("sample", ["car_sample", "wide_sample"])
def test_leaves_and_one_category_columns_predict_as_the_full_determinants(
    sample, request, monkeypatch
):
    """BMATAN's fused path (single-category columns eliminated once, missing cells as leaves)
    against the formula it computes, each row's and class's full m x m graph built and
    summed by log_tree_sum: rows complete, with one missing cell and with several; car's
    weights (column scales) and wide ones with 8 classes (pair scales)."""
    X, y, X_test = request.getfixturevalue(sample)
    X = X.assign(constant="c")  # one category: eliminated once, its fill in every graph
    model = BMATAN(equivalent_sample_size=2.0).fit(X, y)
    assert len(model._tree_reduction()[1]) < X.shape[1]
    test = X_test.iloc[:6].assign(constant="c")
    test.iloc[1, 0] = np.nan
    test.iloc[2, [0, 2, 3]] = np.nan
    codes = model.encode(test)
    got = model._complete_joint(codes, leaves=codes < 0)
    params, n_classes = model._params, len(model.classes_)
    cells = np.where(codes < 0, 0, codes + params["offsets"][:-1])
    expected = np.empty_like(got)
    for r, c in itertools.product(range(len(test)), range(n_classes)):
        seen = codes[r] >= 0
        ratio = params["log_ratio"][c][np.ix_(cells[r], cells[r])]
        ratio = np.where(seen[:, None] & seen[None, :], ratio, 0.0)
        single = np.where(seen, params["log_single"][c, cells[r]], 0.0).sum()
        tree = log_tree_sum(model._log_weights + ratio) - model._log_norm
        expected[r, c] = params["log_class"][c] + single + tree
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-9)
    from bnclassify.classifiers import _bma

    monkeypatch.setattr(_bma, "_BLOCK_CELLS", 1)  # one row per block: the same numbers
    np.testing.assert_array_equal(model._complete_joint(codes, leaves=codes < 0), got)
