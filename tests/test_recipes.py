"""The two recipes of docs/architecture.md, as a contributor would write them.

- "Add a node kind": a Poisson count node, written against the public ``Factor``
  interface and registered with ``bnclassify.factors.register_node``; no other
  module of the library changes.
- "Add a classifier": a selective naive Bayes, written against the public fit
  protocol (``fit_statistics``, ``statistics_plan``, the ``_feature_dag`` template
  method) and the statistics protocol (``bnclassify.stats.Statistics``).

Each is checked against a slow, obviously-correct reference.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.special import gammaln, logsumexp
from scipy.stats import poisson

from bnclassify import AugmentedNaiveBayes, NaiveBayes
from bnclassify.datasets import load_car
from bnclassify.factors import Factor, TableView, register_node, unregister_node
from bnclassify.stats import Statistics, StatisticsPlan
from bnclassify.structure import empty_feature_graph


# -- recipe 1: a node kind ---------------------------------------------------------------
class Poisson(Factor):
    """A count column given the class: ``x | c ~ Poisson(rate_c)``.

    ``rate_c = (sum of x in class c + alpha) / (rows of class c observing x + 1)``
    (a Gamma(alpha, 1) prior's posterior mean).
    """

    kind = "poisson"  # its name in distributions= and feature_kinds_
    discrete = False  # a number, not a code
    structural = False  # depends on the class only

    def __init__(self, alpha=None):
        self.alpha = alpha

    def node_statistics(self, stats, columns, names) -> dict:
        """Additive per-class sums (what partial_fit and dask keep for this node)."""
        x = stats.values[:, columns[0]]
        observed = ~np.isnan(x)
        if (x[observed] < 0).any() or (x[observed] % 1 != 0).any():
            raise ValueError(f"Column {names[columns[0]]!r} is Poisson and needs counts.")
        y = stats.y[observed]
        w = np.ones(observed.sum()) if stats.weights is None else stats.weights[observed]
        return {
            "sum": np.bincount(y, w * x[observed], stats.n_classes),
            "n": np.bincount(y, w, stats.n_classes).astype(float),
        }

    def fit_family(self, stats, columns, parents, alpha, names):
        self._setup(columns, parents, names, stats.discrete)
        alpha = float(alpha if self.alpha is None else self.alpha)
        sums = stats.kept_node_sums(columns) or self.node_statistics(stats, columns, names)
        self.rate_ = (sums["sum"] + alpha) / (sums["n"] + 1.0)
        return self

    def log_terms(self, codes, values) -> np.ndarray:
        x = values[:, self.column_positions[0]]
        out = np.zeros((len(x), len(self.rate_)))
        seen = ~np.isnan(x)  # a missing count integrates to 1: term 0
        xs = x[seen][:, None]
        out[seen] = xs * np.log(self.rate_) - self.rate_ - gammaln(xs + 1)
        return out

    @property
    def n_parameters_(self) -> int:
        return int(self.rate_.size)

    def describe(self):
        return TableView(self.rate_[:, None, None], ["rate"])


@pytest.fixture
def poisson_kind():
    """The kind registered for one test (the library itself has no "poisson")."""
    register_node(Poisson)
    yield
    unregister_node("poisson")


def _counts_table(n=600, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.choice(["low", "high"], n)
    visits = rng.poisson(np.where(y == "high", 6.0, 2.0)).astype(float)
    visits[::23] = np.nan
    X = pd.DataFrame({"visits": visits, "site": rng.choice(list("abc"), n)})
    return X, pd.Series(y, name="risk")


def test_a_registered_node_kind_fits_and_predicts_like_its_slow_reference(poisson_kind):
    X, y = _counts_table()
    model = NaiveBayes(distributions={"visits": "poisson"}).fit(X, y)
    assert model.feature_kinds_ == ["poisson", "categorical"]
    node = model.distributions_["visits"]
    # the slow reference: one class at a time, one row at a time
    classes = list(model.classes_)
    reference = np.empty((len(X), len(classes)))
    for k, c in enumerate(classes):
        rows = (y == c).to_numpy()
        seen = rows & X["visits"].notna().to_numpy()
        rate = (X["visits"][seen].sum() + 1.0) / (seen.sum() + 1.0)
        np.testing.assert_allclose(node.rate_[k], rate)
        prior = np.log((rows.sum() + 1.0) / (len(y) + len(classes)))
        site = X["site"][rows]
        for i in range(len(X)):
            term = prior
            if not np.isnan(X["visits"].iloc[i]):
                term += poisson.logpmf(X["visits"].iloc[i], rate)
            n_site = (site == X["site"].iloc[i]).sum()
            term += np.log((n_site + 1.0) / (rows.sum() + 3.0))
            reference[i, k] = term
    expected = np.exp(reference - logsumexp(reference, axis=1, keepdims=True))
    np.testing.assert_allclose(model.predict_proba(X), expected, atol=1e-12)


def test_a_registered_node_kind_is_additive_over_chunks(poisson_kind):
    X, y = _counts_table(seed=1)
    spec = {"visits": Poisson()}
    whole = NaiveBayes(distributions=spec).fit(X, y)
    chunked = NaiveBayes(distributions=spec)
    for rows in np.array_split(np.arange(len(X)), 3):
        chunked.partial_fit(X.iloc[rows], y.iloc[rows], classes=["high", "low"])
    np.testing.assert_allclose(chunked.predict_proba(X), whole.predict_proba(X), atol=1e-12)


def test_a_registered_node_kind_refuses_what_it_cannot_model(poisson_kind):
    X, y = _counts_table()
    X.loc[3, "visits"] = 2.5
    with pytest.raises(ValueError, match="'visits' is Poisson and needs counts"):
        NaiveBayes(distributions={"visits": "poisson"}).fit(X, y)


# -- recipe 2: a classifier --------------------------------------------------------------
class SelectiveNaiveBayes(AugmentedNaiveBayes):
    """Naive Bayes over the ``k`` features most informative about the class.

    The other features are not in the model: their nodes are fitted on the class
    alone as in naive Bayes, then made independent of it, so they change no
    prediction.
    """

    def __init__(self, k=2, alpha=1.0, handle_unknown="warn"):
        super().__init__(alpha=alpha, handle_unknown=handle_unknown)
        self.k = k

    def statistics_plan(self, schema=None) -> StatisticsPlan:
        return StatisticsPlan()  # N(c, x_i) only: no pair tables

    def _edge_weights(self, stats: Statistics, features):
        # I(X_i; C) from the class-by-feature tables every statistics object answers
        scores = []
        for i in range(len(features)):
            table = stats.family(i) + 1e-300
            joint = table / table.sum()
            outer = joint.sum(axis=1, keepdims=True) * joint.sum(axis=0, keepdims=True)
            scores.append(float((joint * np.log(joint / outer)).sum()))
        self.relevance_ = pd.Series(scores, index=features)
        return None

    def _feature_dag(self, weights, features, stats):
        return empty_feature_graph(features)

    def fit(self, X, y, sample_weight=None):
        super().fit(X, y, sample_weight)
        chosen = self.relevance_.nlargest(self.k).index
        self.selected_features_ = [f for f in self.feature_names_ if f in chosen]
        return self

    def _joint_log_likelihood(self, X):
        codes, values = self.encode(X)
        # the left-out features are summed out exactly, as missing cells are
        codes = codes.copy()
        for j, name in enumerate(self.feature_names_):
            if name not in self.selected_features_:
                codes[:, j] = -1
        return self.compiled_.joint_log_likelihood(codes, values)


def test_a_new_classifier_written_against_the_protocols_equals_its_reference():
    X, y = load_car(return_X_y=True)
    model = SelectiveNaiveBayes(k=2).fit(X, y)
    assert model.selected_features_ == ["persons", "safety"]  # car's two most relevant
    reference = NaiveBayes().fit(X[model.selected_features_], y)
    np.testing.assert_allclose(
        model.predict_proba(X), reference.predict_proba(X[["persons", "safety"]]), atol=1e-12
    )
    assert model.statistics_plan() == StatisticsPlan()


def test_an_unregistered_kind_is_refused_by_name():
    X, y = _counts_table()
    with pytest.raises(ValueError, match="Unknown distribution 'poisson'"):
        NaiveBayes(distributions={"visits": "poisson"}).fit(X, y)
