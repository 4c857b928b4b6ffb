"""Penalised Chow-Liu forests (TAN criterion="loglik"|"aic"|"bic") and the contact prior."""

import itertools

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from _checks import parametrize_with_checks
from _reference import slow_cmi
from pgmpy.models import DiscreteBayesianNetwork
from pgmpy.structure_score import AIC, BIC, LogLikelihood
from sklearn.base import clone

from bnclassify import TAN, SimplerTAN
from bnclassify.classifiers import AugmentedNaiveBayes
from bnclassify.datasets import load_car, load_lactamase, load_p450, load_vote, make_credit_table
from bnclassify.structure import edge_gains, forest_from_weights, orient_tree, tree_from_weights


def feature_edges(model):
    return {frozenset(e) for e in model.structure_.edges() if model.class_node_ not in e}


class FixedForest(AugmentedNaiveBayes):
    """Test-only: a class-rooted forest given by its undirected feature edges."""

    def __init__(self, edges=(), alpha=1.0, handle_unknown="warn"):
        super().__init__(alpha=alpha, handle_unknown=handle_unknown)
        self.edges = edges

    def _feature_dag(self, weights, features, counts):
        graph = nx.Graph()
        graph.add_nodes_from(features)
        graph.add_edges_from(self.edges)
        return orient_tree(graph)


def _pgmpy_score(score, model, X, y):
    data = pd.concat([X, y.rename(model.class_node_)], axis=1).astype(object)
    network = DiscreteBayesianNetwork(model.structure_.edges())
    network.add_nodes_from(model.structure_.nodes)
    return score(data).score(network)


# -- the forest step --------------------------------------------------------------------------
def test_loglik_forest_is_the_full_chow_liu_tree():
    p450 = load_p450()
    X, y = p450.data, p450.target
    model = TAN(criterion="loglik").fit(X, y)
    reference = nx.maximum_spanning_tree(nx.from_pandas_adjacency(slow_cmi(X, y)))
    assert len(feature_edges(model)) == X.shape[1] - 1
    assert feature_edges(model) == {frozenset(e) for e in reference.edges()}
    assert feature_edges(model) == feature_edges(TAN().fit(X, y))


@pytest.mark.parametrize("load", [load_p450, load_lactamase, load_car, load_vote])
def test_bic_keeps_no_more_edges_than_aic_and_aic_no_more_than_loglik(load):
    X, y = load(return_X_y=True)
    counts = {c: len(feature_edges(TAN(criterion=c).fit(X, y))) for c in ("loglik", "aic", "bic")}
    assert counts["bic"] <= counts["aic"] <= counts["loglik"] == X.shape[1] - 1


def test_p450_bic_forest_is_a_proper_forest_and_aic_the_full_tree():
    X, y = load_p450(return_X_y=True)
    bic = TAN(criterion="bic").fit(X, y)
    assert feature_edges(bic) == {frozenset(("block1", "block7")), frozenset(("block7", "block8"))}
    assert len(feature_edges(TAN(criterion="aic").fit(X, y))) == 7
    # every other feature is a root of its own component: the class is its only parent
    lonely = [f for f in X.columns if bic.structure_.in_degree(f) == 1]
    assert sorted(lonely) == ["block1", "block2", "block3", "block4", "block5", "block6"]


def test_forest_is_the_tree_without_its_non_positive_edges():
    rng = np.random.default_rng(0)
    for _ in range(20):
        w = rng.normal(size=(7, 7))
        w = w + w.T
        names = [f"f{i}" for i in range(7)]
        tree = tree_from_weights(w, names)
        forest = forest_from_weights(w, names)
        assert nx.is_forest(forest) and set(forest.nodes) == set(names)
        positive = {frozenset((u, v)) for u, v, x in tree.edges(data="weight") if x > 0}
        assert {frozenset(e) for e in forest.edges()} == positive
        # Kruskal on the positive edges alone, by networkx
        graph = nx.Graph()
        graph.add_nodes_from(names)
        graph.add_weighted_edges_from(
            (names[i], names[j], w[i, j])
            for i, j in itertools.combinations(range(7), 2)
            if w[i, j] > 0
        )
        expected = nx.maximum_spanning_tree(graph)
        assert {frozenset(e) for e in forest.edges()} == {frozenset(e) for e in expected.edges()}


# -- the scores ------------------------------------------------------------------------------
def test_edge_gains_equal_a_by_hand_computation():
    X, y = load_car(return_X_y=True)
    cmi = slow_cmi(X, y).to_numpy()
    n, C = len(X), y.nunique()
    r = X.nunique().to_numpy()
    rows = np.full(cmi.shape, float(n))
    for i, j in itertools.combinations(range(X.shape[1]), 2):
        df = C * (r[i] - 1) * (r[j] - 1)
        aic = edge_gains(cmi, rows, r, C, "aic")
        bic = edge_gains(cmi, rows, r, C, "bic")
        assert aic[i, j] == pytest.approx(n * cmi[i, j] - df, abs=1e-9)
        assert bic[i, j] == pytest.approx(n * cmi[i, j] - df * np.log(n) / 2, abs=1e-9)
        assert aic[j, i] == aic[i, j]
    model = TAN(criterion="bic").fit(X, y)
    np.testing.assert_allclose(model.weights_, edge_gains(cmi, rows, r, C, "bic"), atol=1e-9)


def test_edge_gains_count_only_rows_observing_both_features():
    X, y = load_vote(return_X_y=True)
    model = TAN(criterion="aic").fit(X, y)
    a, b = "water_project_cost_sharing", "el_salvador_aid"
    both = X[[a, b]].notna().all(axis=1)
    n_ab = int(both.sum())
    assert n_ab < len(X)
    cmi = slow_cmi(X[[a, b]], y).loc[a, b]
    df = 2 * (2 - 1) * (2 - 1)
    assert model.weights_.loc[a, b] == pytest.approx(n_ab * cmi - df, abs=1e-9)


@pytest.mark.parametrize("criterion", ["loglik", "aic", "bic"])
def test_model_scores_equal_pgmpy_structure_scores(criterion):
    # at the maximum-likelihood parameters (alpha=0), -aic/2 and -bic/2 are the penalised
    # log-likelihoods LL - k and LL - k log(N) / 2 that pgmpy and R bnclassify report
    X, y = load_p450(return_X_y=True)
    model = TAN(criterion=criterion, alpha=0.0).fit(X, y)
    assert model.log_likelihood(X, y) == pytest.approx(
        _pgmpy_score(LogLikelihood, model, X, y), rel=1e-12
    )
    assert -model.aic(X, y) / 2 == pytest.approx(_pgmpy_score(AIC, model, X, y), rel=1e-12)
    assert -model.bic(X, y) / 2 == pytest.approx(_pgmpy_score(BIC, model, X, y), rel=1e-12)


def test_penalised_log_likelihood_decomposes_into_the_kept_edge_gains():
    X, y = load_lactamase(return_X_y=True)
    nb = FixedForest(alpha=0.0).fit(X, y)
    for criterion, penalised in (
        ("aic", lambda m: -m.aic(X, y) / 2),
        ("bic", lambda m: -m.bic(X, y) / 2),
    ):
        model = TAN(criterion=criterion, alpha=0.0).fit(X, y)
        kept = sum(model.weights_.loc[u, v] for u, v in map(tuple, feature_edges(model)))
        assert penalised(model) == pytest.approx(penalised(nb) + kept, rel=1e-12)


@pytest.mark.parametrize("criterion", ["aic", "bic"])
def test_penalised_forest_is_the_best_of_all_forests(criterion):
    # brute force: every forest over five P450 blocks, scored by the model's own statistic
    X, y = load_p450(return_X_y=True)
    X = X[["block1", "block2", "block5", "block7", "block8"]]
    score = (lambda m: -m.aic(X, y) / 2) if criterion == "aic" else (lambda m: -m.bic(X, y) / 2)
    pairs = list(itertools.combinations(X.columns, 2))
    scores = {}
    for size in range(len(X.columns)):
        for edges in itertools.combinations(pairs, size):
            if size == 0 or nx.is_forest(nx.Graph(edges)):
                scores[frozenset(map(frozenset, edges))] = score(
                    FixedForest(edges, alpha=0.0).fit(X, y)
                )
    assert len(scores) == 291  # labelled forests on five nodes
    best = max(scores, key=scores.get)
    model = TAN(criterion=criterion, alpha=0.0).fit(X, y)
    assert score(model) == pytest.approx(scores[best], rel=1e-12)
    assert feature_edges(model) == best
    if criterion == "bic":
        assert 0 < len(best) < 4  # a proper forest: not only about spanning trees


def test_loglik_tree_maximises_the_log_likelihood_over_spanning_trees():
    X, y = load_car(return_X_y=True)
    X = X.iloc[:, :5]
    model = TAN(alpha=0.0, criterion="loglik").fit(X, y)
    best = max(
        FixedForest(tree.edges(), alpha=0.0).fit(X, y).log_likelihood(X, y)
        for tree in nx.SpanningTreeIterator(nx.complete_graph(X.columns))
    )
    assert model.log_likelihood(X, y) == pytest.approx(best, rel=1e-12)


def test_aic_tree_maximises_aic_over_spanning_trees():
    # 10, 4, 3, 4 and 4 categories: the penalty differs between pairs, and the
    # plain-information tree (a star around the 10-level purpose) is not this one
    table = make_credit_table()
    X = table[["purpose", "checking_status", "housing", "personal_status", "job"]]
    y = table["credit_risk"]
    model = TAN(alpha=0.0, criterion="aic_tree").fit(X, y)
    plain = TAN(alpha=0.0, criterion="loglik").fit(X, y)
    assert feature_edges(model) != feature_edges(plain)
    fits = [
        FixedForest(tree.edges(), alpha=0.0).fit(X, y)
        for tree in nx.SpanningTreeIterator(nx.complete_graph(X.columns))
    ]
    aic = [f.log_likelihood(X, y) - f.n_parameters_ for f in fits]
    assert model.log_likelihood(X, y) - model.n_parameters_ == pytest.approx(max(aic), rel=1e-12)
    assert feature_edges(model) == feature_edges(fits[int(np.argmax(aic))])


# -- the contact prior -----------------------------------------------------------------------
@pytest.mark.parametrize("load", [load_p450, load_lactamase])
def test_contact_prior_zero_is_tan_and_large_is_simpler_tan(load):
    bunch = load()
    X, y, contacts = bunch.data, bunch.target, bunch.contact_matrix
    tan = feature_edges(TAN().fit(X, y))
    stan = feature_edges(SimplerTAN(contacts).fit(X, y))
    assert tan != stan
    zero = TAN(contact_matrix=contacts, contact_prior=0.0).fit(X, y)
    assert feature_edges(zero) == tan
    np.testing.assert_array_equal(zero.weights_, TAN().fit(X, y).weights_)
    for criterion in ("loglik", "bic"):
        huge = TAN(contact_matrix=contacts, contact_prior=1e6, criterion=criterion).fit(X, y)
        assert feature_edges(huge) == stan


def test_contact_prior_moves_the_tree_from_tan_to_simpler_tan():
    bunch = load_p450()
    X, y, contacts = bunch.data, bunch.target, bunch.contact_matrix
    stan = feature_edges(SimplerTAN(contacts).fit(X, y))
    shared = [
        len(feature_edges(TAN(contact_matrix=contacts, contact_prior=lam).fit(X, y)) & stan)
        for lam in (0.0, 3.0, 10.0, 30.0, 100.0)
    ]
    assert shared == sorted(shared) and shared[0] < shared[-1] == len(stan)
    assert len(set(shared)) > 2  # passes through trees that are neither


def test_contact_prior_weights_equal_a_by_hand_computation():
    bunch = load_p450()
    X, y = bunch.data, bunch.target
    contacts = bunch.contact_matrix.to_numpy(dtype=float)
    lam = 7.5
    model = TAN(contact_matrix=bunch.contact_matrix, contact_prior=lam, criterion="aic").fit(X, y)
    cmi = slow_cmi(X, y).to_numpy()
    off_diagonal = contacts[~np.eye(8, dtype=bool)]
    expected = len(X) * cmi - 2 * 2 * 2 + lam * contacts / off_diagonal.max()
    np.fill_diagonal(expected, 0.0)
    np.testing.assert_allclose(model.weights_.to_numpy(), expected, atol=1e-9)


def test_contact_prior_accepts_a_callable_and_a_relabelled_frame():
    bunch = load_p450()
    X, y = bunch.data, bunch.target
    frame = TAN(contact_matrix=bunch.contact_matrix, contact_prior=20.0).fit(X, y)
    shuffled = bunch.contact_matrix.iloc[::-1, ::-1]
    again = TAN(contact_matrix=shuffled, contact_prior=20.0).fit(X, y)
    called = TAN(
        contact_matrix=lambda names: bunch.contact_matrix.loc[names, names], contact_prior=20.0
    ).fit(X, y)
    assert feature_edges(frame) == feature_edges(again) == feature_edges(called)


def test_contact_prior_on_data_with_missing_values():
    X, y = load_vote(return_X_y=True)
    m = X.shape[1]
    chain = np.eye(m, k=1) + np.eye(m, k=-1)
    zero = TAN(contact_matrix=chain, contact_prior=0.0).fit(X, y)
    assert feature_edges(zero) == feature_edges(TAN().fit(X, y))
    huge = TAN(contact_matrix=chain, contact_prior=1e6).fit(X, y)
    assert feature_edges(huge) == feature_edges(SimplerTAN(chain).fit(X, y))
    assert np.isfinite(huge.predict_proba(X)).all()


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"criterion": "likelihood"}, "criterion must be one of"),
        ({"contact_prior": -1.0, "contact_matrix": np.eye(8)}, "contact_prior must be"),
        ({"contact_prior": float("nan"), "contact_matrix": np.eye(8)}, "contact_prior must be"),
        ({"contact_prior": "10", "contact_matrix": np.eye(8)}, "contact_prior must be"),
        ({"contact_prior": 5.0}, "needs a contact_matrix"),
        ({"contact_prior": 5.0, "contact_matrix": np.eye(7)}, "7 x 7 but the data has 8"),
    ],
)
def test_bad_parameters_raise_clear_errors(params, message):
    X, y = load_p450(return_X_y=True)
    with pytest.raises(ValueError, match=message):
        TAN(**params).fit(X, y)


def test_clone_keeps_parameters_as_given():
    contacts = load_p450().contact_matrix
    model = TAN(criterion="bic", contact_matrix=contacts, contact_prior=3.0)
    copy = clone(model)
    assert copy.get_params()["criterion"] == "bic"
    assert copy.get_params()["contact_prior"] == 3.0
    assert copy.get_params()["contact_matrix"].equals(contacts)


def _chain(features):
    m = len(features)
    return np.eye(m, k=1) + np.eye(m, k=-1)


def _categorical(estimator):
    # scikit-learn's checks feed float columns; the penalised scores and the contact prior
    # are defined for categorical features, so model every column as categories
    if "distributions" in estimator.get_params():
        estimator.set_params(distributions="categorical")
    # a float seen only in a zero-weight training row is then an unseen category at predict:
    # summed out, as the checks expect, without the warning a user would get
    return estimator.set_params(handle_unknown="marginalize")


@parametrize_with_checks(
    [
        _categorical(TAN(criterion="bic")),
        _categorical(TAN(criterion="aic", contact_matrix=_chain, contact_prior=5.0)),
    ]
)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)
