"""bnclassify.inference.posteriors against pgmpy's VariableElimination and a brute-force sum.

Categorical networks: every unobserved node's posterior, and the class's, equal
pgmpy's answer on the same CPTs to 1e-10, for several evidence sets. Continuous
nodes: the posterior density equals a slow reference that enumerates every
joint state of the discrete nodes and scores complete rows with the network's
full-joint evaluator (no message passing, nothing summed out by the code under
test), and integrates to 1.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pgmpy.inference import VariableElimination
from scipy.special import logsumexp

from bnclassify import KDB, TAN, EnsembleTAN, NaiveBayes, SimplerTAN
from bnclassify.datasets import load_car, load_p450, make_clinic_table
from bnclassify.inference import posteriors


@pytest.fixture(scope="module")
def car():
    X, y = load_car(return_X_y=True)
    return X, y


@pytest.fixture(scope="module")
def p450():
    return load_p450()


def pgmpy_marginal(engine, variable, evidence):
    factor = engine.query([variable], evidence=evidence, show_progress=False)
    return pd.Series(factor.values, index=factor.state_names[variable])


CAR_EVIDENCE = [
    {},
    {"safety": "low"},
    {"safety": "high", "buying": "low"},
    {"persons": "4", "lug_boot": "big", "maint": "vhigh"},
    {"doors": "2", "safety": "med", "buying": "vhigh", "persons": "more"},
]
P450_EVIDENCE = [
    {},
    {"block4": "2"},
    {"block1": "3", "block7": "1"},
    {"block2": "1", "block3": "2", "block5": "3", "block8": "2"},
    {f"block{k}": "1" for k in range(1, 8)},
]


def assert_agrees_with_pgmpy(model, evidence):
    result = posteriors(model, evidence)
    engine = VariableElimination(model.network_)
    expected = pgmpy_marginal(engine, model.class_node_, evidence)
    np.testing.assert_allclose(
        result.classes.to_numpy(), expected.loc[result.classes.index].to_numpy(), atol=1e-10
    )
    unobserved = [n for n in model.feature_names_ if n not in evidence]
    assert sorted(result.features) == sorted(unobserved)
    for name in unobserved:
        expected = pgmpy_marginal(engine, name, evidence)
        got = result.features[name]
        np.testing.assert_allclose(
            got.to_numpy(), expected.loc[list(got.index)].to_numpy(), atol=1e-10, err_msg=name
        )


@pytest.mark.parametrize("evidence", CAR_EVIDENCE)
@pytest.mark.parametrize("estimator", [TAN, NaiveBayes])
def test_car_posteriors_equal_pgmpy(car, estimator, evidence):
    X, y = car
    assert_agrees_with_pgmpy(estimator().fit(X, y), evidence)


@pytest.mark.parametrize("evidence", P450_EVIDENCE)
def test_p450_posteriors_equal_pgmpy(p450, evidence):
    tan = TAN().fit(p450.data, p450.target)
    assert_agrees_with_pgmpy(tan, evidence)
    stan = SimplerTAN(p450.contact_matrix).fit(p450.data, p450.target)
    assert_agrees_with_pgmpy(stan, evidence)


def test_a_two_parent_network_equals_pgmpy(p450):
    kdb = KDB(k=2).fit(p450.data, p450.target)
    assert any(len(p) == 2 for p in kdb.compiled_.parents)
    assert_agrees_with_pgmpy(kdb, {"block3": "1", "block6": "2"})


@settings(max_examples=15, deadline=None)
@given(st.data())
def test_random_evidence_equals_pgmpy(car, data):
    X, y = car
    model = _car_tan(X, y)
    names = data.draw(st.lists(st.sampled_from(list(X.columns)), unique=True, max_size=5))
    evidence = {
        n: data.draw(st.sampled_from(list(model.categories_[list(X.columns).index(n)])))
        for n in names
    }
    evidence = {n: (v.item() if isinstance(v, np.generic) else v) for n, v in evidence.items()}
    assert_agrees_with_pgmpy(model, evidence)


_CACHE = {}


def _car_tan(X, y):
    if "tan" not in _CACHE:
        _CACHE["tan"] = TAN().fit(X, y)
    return _CACHE["tan"]


def test_evidence_effect_is_the_class_posterior_without_each_item(p450):
    model = TAN().fit(p450.data, p450.target)
    evidence = {"block1": "3", "block4": "2", "block7": "1"}
    result = posteriors(model, evidence)
    top = list(result.classes.index).index(result.top_class)
    for name in evidence:
        rest = {k: v for k, v in evidence.items() if k != name}
        without = posteriors(model, rest).classes
        row = result.evidence_effect.loc[name]
        assert row["without"] == pytest.approx(without.iloc[top], abs=1e-12)
        assert row["shift"] == pytest.approx(result.classes.iloc[top] - without.iloc[top])
        tv = 0.5 * np.abs(result.classes.to_numpy() - without.to_numpy()).sum()
        assert row["total_variation"] == pytest.approx(tv, abs=1e-12)
    assert result.most_influential == result.evidence_effect["total_variation"].idxmax()


# -- continuous nodes -----------------------------------------------------------------------
@pytest.fixture(scope="module")
def clinic():
    table = make_clinic_table(600, random_state=1)
    X, y = table.drop(columns="diagnosis"), table["diagnosis"]
    return X, y


def brute_force_density(model, evidence, name, grid):
    """log p(x_name = t, evidence) by enumerating every unobserved discrete node's states.

    Each complete assignment is one row scored by ``complete_rows`` (the sum of
    the factors' log terms); unobserved continuous nodes other than ``name`` are
    not allowed here, so nothing is integrated.
    """
    names = list(model.feature_names_)
    discrete = [n for i, n in enumerate(names) if model.categories_[i] is not None]
    free = [n for n in discrete if n not in evidence]
    continuous = [n for i, n in enumerate(names) if model.categories_[i] is None]
    assert set(continuous) - set(evidence) == {name}
    choices = [list(model.categories_[names.index(n)]) for n in free]
    rows = []
    for t in grid:
        for states in itertools.product(*choices):
            row = {**evidence, name: t, **dict(zip(free, states, strict=True))}
            rows.append(row)
    frame = pd.DataFrame(
        {
            n: pd.Series([r[n] for r in rows], dtype=float if n in continuous else object)
            for n in names
        }
    )
    codes, values = model.encode(frame)
    assert (codes[:, [names.index(n) for n in discrete]] >= 0).all()
    joint = model.compiled_.complete_rows(codes, values)  # (rows, classes)
    return logsumexp(joint.reshape(len(grid), -1), axis=1)  # log p(x = t, evidence)


@pytest.mark.usefixtures("densities")  # the clinic table's Gaussian and log-normal nodes
@pytest.mark.parametrize(
    ("query", "evidence"),
    [
        ("glucose", {"crp": 0.004, "visits": 7.0}),  # parent ward unobserved; child visits seen
        ("visits", {"glucose": 130.0, "crp": 0.002, "pain": 4}),  # child of a Gaussian parent
        ("crp", {"glucose": 95.0, "visits": 3.0, "smoker": True}),  # a log-normal node
    ],
)
def test_continuous_posterior_density_equals_brute_force(clinic, query, evidence):
    X, y = clinic
    model = TAN().fit(X, y)
    result = posteriors(model, evidence, n_points=400)
    density = result.features[query]
    grid = density.index.to_numpy()
    log_unnormalised = brute_force_density(model, evidence, query, grid)
    # exact up to the normaliser P(evidence), which the density's integral checks
    ratio = np.log(density.to_numpy()) - log_unnormalised
    np.testing.assert_allclose(ratio, -result.log_evidence, atol=1e-9)
    # the default grid spans the bulk; a wide one holds (almost) all the mass
    low, high = grid[0], grid[-1]
    wide = np.geomspace(low / 100, high * 100, 20_000) if query == "crp" else None
    if wide is None:
        wide = np.linspace(low - 3 * (high - low), high + 3 * (high - low), 20_000)
    full = posteriors(model, evidence, grid={query: wide}).features[query]
    assert np.trapezoid(full.to_numpy(), wide) == pytest.approx(1.0, abs=1e-4)
    np.testing.assert_allclose(np.interp(grid, wide, full.to_numpy()), density, rtol=1e-2)


@pytest.mark.usefixtures("densities")  # the clinic table's Gaussian and log-normal nodes
def test_continuous_density_is_a_mixture_over_the_classes(clinic):
    """Naive Bayes: p(x | e) = sum_c P(c | e) N(x; mean_c, var_c), written out."""
    X, y = clinic
    model = NaiveBayes().fit(X, y)
    evidence = {"pain": 2, "ward": "north"}
    result = posteriors(model, evidence, n_points=300)
    density = result.features["glucose"]
    grid = density.index.to_numpy()
    factor = model.distributions_["glucose"]
    mean, var = np.ravel(factor.intercept_), np.ravel(factor.var_)
    normal = np.exp(-((grid[:, None] - mean) ** 2) / (2 * var)) / np.sqrt(2 * np.pi * var)
    expected = normal @ result.classes.to_numpy()
    np.testing.assert_allclose(density.to_numpy(), expected, rtol=1e-9)


@pytest.mark.usefixtures("densities")  # the clinic table's Gaussian and log-normal nodes
# -- errors -------------------------------------------------------------------------------
def test_errors_name_the_evidence(car, clinic):
    X, y = car
    model = _car_tan(X, y)
    with pytest.raises(ValueError, match=r"evidence names 'colour', which is not a feature"):
        posteriors(model, {"colour": "red"})
    with pytest.raises(ValueError, match=r"evidence\['safety'\] = 'extreme' is not a category"):
        posteriors(model, {"safety": "extreme"})
    with pytest.raises(ValueError, match="evidence must be a dict"):
        posteriors(model, [("safety", "low")])
    with pytest.raises(ValueError, match="n_points must be an integer"):
        posteriors(model, {}, n_points=1)
    Xc, yc = clinic
    mixed = TAN().fit(Xc, yc)
    with pytest.raises(ValueError, match=r"evidence\['glucose'\] must be a number"):
        posteriors(mixed, {"glucose": "high"})
    with pytest.raises(ValueError, match=r"evidence\['crp'\] = -1.0 lies outside the support"):
        posteriors(mixed, {"crp": -1.0})
    with pytest.raises(ValueError, match=r"evidence\['smoker'\] = 1 is not a category"):
        posteriors(mixed, {"smoker": 1})
    with pytest.raises(ValueError, match=r"grid names 'pain', which is not a continuous"):
        posteriors(mixed, {}, grid={"pain": [1, 2]})
    with pytest.raises(ValueError, match=r"grid\['crp'\] must hold finite numbers"):
        posteriors(mixed, {}, grid={"crp": [np.nan]})


def test_models_without_one_network_are_refused(car):
    X, y = car
    with pytest.raises(TypeError, match="not fitted yet"):
        posteriors(TAN(), {})
    ensemble = EnsembleTAN().fit(X, y)
    with pytest.raises(TypeError, match=r"pass one of them, e.g. model.estimators_\[0\]"):
        posteriors(ensemble, {})
    member = posteriors(ensemble.estimators_[0], {"safety": "low"})
    assert member.classes.sum() == pytest.approx(1.0)
