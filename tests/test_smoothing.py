"""``smoothing=`` on the estimators: dispatch, hierarchy order, and everything downstream.

A smoothed table is an ordinary CPT: predictions, SHAP values, model files, pgmpy
export, plots, ``partial_fit`` and sample weights read it as they read an additive one.
The sampler runs few sweeps here (``HDP(n_iter=...)``): the same code paths as the
default 5000, at a fraction of the time (the numpy build runs the sampler in Python).
"""

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from _checks import parametrize_with_checks

from bnclassify import (
    AODE,
    BSEJ,
    ESKDB,
    FSSJ,
    KDB,
    KDBHC,
    SKDB,
    SPODE,
    TAN,
    TANHC,
    TANHCSP,
    EnsembleTAN,
    NaiveBayes,
    SimplerTAN,
)
from bnclassify.exceptions import InvalidParameterError
from bnclassify.explain import explain
from bnclassify.io import dump, load
from bnclassify.parameters import HDP, Laplace, Smoothing
from bnclassify.plotting import plot_cpt
from bnclassify.stats import SmoothedTables, training_statistics

FEW = HDP(n_iter=25)


@pytest.fixture(scope="module")
def car():
    from bnclassify.datasets import load_car

    X, y = load_car(return_X_y=True)
    rows = np.random.default_rng(0).choice(len(X), 600, replace=False)
    return X.iloc[rows].reset_index(drop=True), y.iloc[rows].reset_index(drop=True)


def _chain(features):
    m = len(features)
    return np.eye(m, k=1) + np.eye(m, k=-1)


ESTIMATORS = [
    NaiveBayes,
    TAN,
    lambda **kw: SimplerTAN(_chain, **kw),
    lambda **kw: KDB(k=2, **kw),
    SPODE,
    AODE,
    EnsembleTAN,
    TANHC,
    TANHCSP,
    FSSJ,
    BSEJ,
    KDBHC,
    lambda **kw: SKDB(k=2, **kw),
    lambda **kw: ESKDB(n_estimators=2, k=2, **kw),
]


@pytest.mark.parametrize("make", ESTIMATORS)
def test_every_estimator_smooths_with_hdp_repeatably(car, make):
    X, y = car
    additive = make(random_state=0).fit(X, y).predict_proba(X)
    model = make(smoothing=FEW, random_state=0).fit(X, y)
    first = model.predict_proba(X)
    again = make(smoothing=FEW, random_state=0).fit(X, y).predict_proba(X)
    np.testing.assert_array_equal(first, again)
    np.testing.assert_allclose(first.sum(axis=1), 1.0, rtol=1e-12)
    assert np.isfinite(first).all() and (first > 0).all()
    if getattr(model, "selected_features_", True):  # (a wrapper may keep no feature at all)
        assert not np.allclose(first, additive)


def test_laplace_smoothing_is_the_additive_estimate_bit_for_bit(car):
    X, y = car
    plain = KDB(k=2).fit(X, y)
    named = KDB(k=2, smoothing="laplace").fit(X, y)
    given = KDB(k=2, smoothing=Laplace(1.0)).fit(X, y)
    for model in (named, given):
        np.testing.assert_array_equal(model.predict_proba(X), plain.predict_proba(X))
    # a Laplace instance sets the tables' pseudo-count; the class prior keeps alpha
    half = KDB(k=2, smoothing=Laplace(0.5)).fit(X, y)
    expected = KDB(k=2, alpha=0.5).fit(X, y)
    for a, b in zip(half.compiled_.factors, expected.compiled_.factors, strict=True):
        np.testing.assert_array_equal(a.log_table_, b.log_table_)
    np.testing.assert_array_equal(half.compiled_.log_prior, plain.compiled_.log_prior)


class Recording(Smoothing):
    """Additive smoothing that keeps the count tables it is given, in order."""

    name = "recording"

    def __init__(self):
        self.seen = []

    def log_conditionals(self, tables, rng=None):
        self.seen.extend(np.array(t) for t in tables)
        return [Laplace(1.0).log_conditional(t) for t in tables]

    def log_conditional(self, counts, rng=None):
        return self.log_conditionals([counts], rng)[0]


@pytest.mark.parametrize(
    "make",
    [
        NaiveBayes,
        TAN,
        lambda **kw: KDB(k=2, **kw),
        lambda **kw: KDB(k=3, **kw),
        lambda **kw: SPODE("safety", **kw),
        lambda **kw: KDBHC(k=2, random_state=0, **kw),
        lambda **kw: SKDB(k=3, **kw),
    ],
)
def test_counts_reach_the_smoother_in_the_stated_hierarchy_order(car, make):
    X, y = car
    recording = Recording()
    model = make(smoothing=recording).fit(X, y)
    _, _, stats = training_statistics(X, y)
    names = list(X.columns)
    expected = []
    for j, name in enumerate(names):  # the class first, then the parents as the table has them
        parents = model.distributions_[name].parents_
        assert set(parents) == set(model.structure_.predecessors(name)) - {model.class_node_}
        expected.append(stats.family(j, tuple(names.index(p) for p in parents)))
    assert len(recording.seen) == len(expected)
    for got, counts in zip(recording.seen, expected, strict=True):
        np.testing.assert_array_equal(got, counts)
    if isinstance(model, KDB | SKDB):  # parents added by decreasing I(X_i; X_j | C)
        for name in names:
            cmi = [model.weights_.loc[name, p] for p in model.distributions_[name].parents_]
            assert cmi == sorted(cmi, reverse=True)
    if isinstance(model, KDBHC):  # the wrappers' order: the parents' names
        for name in names:
            parents = list(model.distributions_[name].parents_)
            assert parents == sorted(parents)


def test_unavailable_and_unknown_methods_are_refused_clearly(car):
    X, y = car
    with pytest.raises(InvalidParameterError, match="smoothing must be one of"):
        KDB(smoothing="dirichlet").fit(X, y)
    with pytest.raises(InvalidParameterError, match="HDP: n_iter must be"):
        KDB(smoothing=HDP(n_iter=0)).fit(X, y)
    with pytest.raises(InvalidParameterError, match="random_state"):
        TAN(smoothing="hdp", random_state="seed").fit(X, y)


def test_sample_weights_must_count_rows(car):
    X, y = car
    doubled = TAN(smoothing=FEW, random_state=0).fit(X, y, sample_weight=np.full(len(y), 2))
    repeated = TAN(smoothing=FEW, random_state=0).fit(pd.concat([X, X]), pd.concat([y, y]))
    np.testing.assert_allclose(doubled.predict_proba(X), repeated.predict_proba(X), atol=1e-12)
    with pytest.raises(ValueError, match="whole numbers"):
        TAN(smoothing=FEW).fit(X, y, sample_weight=np.full(len(y), 0.5))


def _assert_partial_fit_equals_fit(X, y):
    """NaiveBayes and TAN fitted in three partial_fit chunks predict as one fit."""
    classes = np.unique(y)
    for make in (NaiveBayes, TAN):
        model = make(smoothing=FEW, random_state=0)
        for rows in np.array_split(np.arange(len(X)), 3):
            model.partial_fit(X.iloc[rows], y.iloc[rows], classes=classes)
        whole = make(smoothing=FEW, random_state=0).fit(X, y)
        np.testing.assert_allclose(model.predict_proba(X), whole.predict_proba(X), atol=1e-12)


def test_partial_fit_resmooths_the_accumulated_counts(car):
    X, y = car
    _assert_partial_fit_equals_fit(X, y)


def test_a_smoothed_model_explains_saves_exports_and_plots(car, tmp_path):
    X, y = car
    model = KDB(k=2, smoothing=FEW, random_state=0).fit(X, y)
    # exact SHAP (a tree's closed form), from the smoothed tables
    tree = TAN(smoothing=FEW, random_state=0).fit(X, y)
    explanation = explain(tree, X.iloc[:5], X.iloc[::50])
    total = explanation.base_values + explanation.values.sum(axis=1)
    log_proba = tree.predict_log_proba(X.iloc[:5])
    np.testing.assert_allclose(total, log_proba - log_proba.mean(axis=1, keepdims=True), atol=1e-9)
    # model files: the smoothing is a parameter, the tables are state
    path = dump(model, tmp_path / "kdb.bnc")
    loaded = load(path)
    assert loaded.get_params()["smoothing"].get_params() == FEW.get_params()
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    for name in ("hdp", "laplace"):
        again = load(dump(TAN(smoothing=name, random_state=1), tmp_path / f"{name}.bnc"))
        assert again.get_params()["smoothing"] == name
    # pgmpy: the CPDs hold the smoothed tables
    network = model.network_
    for factor in model.compiled_.factors:
        (feature,) = factor.columns_
        cpd = network.get_cpds(feature)
        table = factor.table_
        np.testing.assert_allclose(cpd.get_values(), table.reshape(-1, table.shape[-1]).T)
    fig = plot_cpt(model, "buying")
    assert fig.axes
    plt.close(fig)


def _categorical(estimator):
    # scikit-learn's checks feed float columns; as categories they make sparse tables for the
    # sampler (a float seen only in a zero-weight row is summed out at predict, silently)
    if "distributions" in estimator.get_params():
        estimator.set_params(distributions="categorical")
    return estimator.set_params(handle_unknown="marginalize")


@parametrize_with_checks(
    [
        _categorical(NaiveBayes(smoothing=HDP(n_iter=10), random_state=0)),
        _categorical(TAN(smoothing=HDP(n_iter=10), random_state=0)),
        _categorical(KDB(k=2, smoothing=HDP(n_iter=10), random_state=0)),
    ]
)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)


def test_rows_with_a_missing_parent_reach_the_upper_levels_of_the_tree(car):
    # HDP counts a row whose parent cell is missing at the node of its observed prefix:
    # SmoothedTables hands the method each family's shorter families
    X, y = car
    X = X.mask(np.random.default_rng(0).random(X.shape) < 0.3)
    _, _, stats = training_statistics(X, y)
    families = [(1, (0,)), (2, (0, 1))]
    smoothed = SmoothedTables(stats, FEW, families, np.random.default_rng(0))
    counts = [stats.family(child, parents) for child, parents in families]
    prefixes = [[stats.family(1, ())], [stats.family(2, ()), stats.family(2, (0,))]]
    expected = FEW.log_conditionals(counts, np.random.default_rng(0), prefixes=prefixes)
    complete_rows_only = FEW.log_conditionals(counts, np.random.default_rng(0))
    for (child, parents), table, other in zip(families, expected, complete_rows_only, strict=True):
        np.testing.assert_array_equal(smoothed.log_family(child, parents, 1.0), table)
        assert not np.allclose(table, other)
    # the accumulated statistics of partial_fit give the same prefixes
    _assert_partial_fit_equals_fit(X, y)
