"""The one node model: every estimator on every kind of feature, through one interface."""

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import StratifiedKFold, cross_val_score

from bnclassify import (
    AODE,
    KDB,
    TAN,
    EnsembleTAN,
    NaiveBayes,
    SimplerTAN,
    conditional_mutual_information,
)
from bnclassify.factors import Factor

# every estimator on the density nodes the kinds rule chooses (distributions="density");
# the binned default is tested on every estimator in tests/test_binned.py
pytestmark = pytest.mark.usefixtures("numbers_as_densities")

ESTIMATORS = {
    "NaiveBayes": NaiveBayes,
    "TAN": TAN,
    "TAN (BIC forest)": lambda: TAN(criterion="bic"),
    "KDB(k=2)": lambda: KDB(k=2),
    "AODE": AODE,
    "EnsembleTAN": EnsembleTAN,
    "EnsembleTAN (bagging)": lambda: EnsembleTAN(bootstrap=True, n_estimators=5, random_state=0),
}


@pytest.fixture(scope="module")
def mixed():
    """Breast cancer: four float columns kept as floats, two banded into strings."""
    data = load_breast_cancer(as_frame=True)
    X = data.data[["mean radius", "mean texture", "mean smoothness", "mean symmetry"]].copy()
    X["concavity"] = pd.cut(
        data.data["mean concavity"], [-1, 0.03, 0.1, 1], labels=["low", "mid", "high"]
    ).astype(str)
    X["area"] = pd.qcut(data.data["worst area"], 4, labels=["a", "b", "c", "d"]).astype(str)
    return X, data.target.map({0: "malignant", 1: "benign"})


def _holey(X, seed=0):
    rng = np.random.default_rng(seed)
    holey = X.copy().astype({"concavity": object, "area": object})
    for column in holey.columns:
        holey.loc[rng.random(len(holey)) < 0.15, column] = np.nan
    return holey


@pytest.mark.parametrize("name", ESTIMATORS)
def test_every_estimator_fits_mixed_tables(mixed, name):
    X, y = mixed
    model = ESTIMATORS[name]().fit(X, y)
    # within the classes, texture and symmetry fit a log-normal significantly better
    assert model.feature_kinds_ == ["gaussian", "lognormal"] * 2 + ["categorical"] * 2
    proba = model.predict_proba(X)
    assert np.isfinite(proba).all() and np.allclose(proba.sum(axis=1), 1.0, atol=1e-12)
    holey = _holey(X)
    proba = model.predict_proba(holey)
    assert np.isfinite(proba).all() and np.allclose(proba.sum(axis=1), 1.0, atol=1e-12)
    folds = StratifiedKFold(5, shuffle=True, random_state=0)
    accuracy = cross_val_score(ESTIMATORS[name](), X, y, cv=folds, error_score="raise")
    assert accuracy.mean() > 0.85, accuracy


def test_conditional_mutual_information_is_what_tan_learns_from(mixed):
    X, y = mixed
    holey = _holey(X, seed=1)
    for table in (X, holey):
        cmi = conditional_mutual_information(table, y)
        weights = TAN(criterion="loglik").fit(table, y).weights_
        np.testing.assert_allclose(cmi.to_numpy(), weights.to_numpy(), rtol=0, atol=1e-9)
        assert list(cmi.columns) == list(table.columns)
        assert (cmi.loc["mean radius", ["mean texture", "concavity"]] > 0).all()


def test_the_kind_rule_holds_in_every_learned_structure(mixed):
    X, y = mixed
    for model in (TAN().fit(X, y), KDB(k=2).fit(X, y), TAN(criterion="aic").fit(X, y)):
        kinds = dict(zip(model.feature_names_, model.feature_kinds_, strict=True))
        for parent, child in model.structure_.edges():
            if parent != model.class_node_:
                assert not (kinds[child] == "categorical" and kinds[parent] != "categorical")
        for node in model.compiled_.factors:
            assert len(node._continuous_parents) <= 1  # missing values stay integrable


def test_a_continuous_super_parent_is_refused_and_aode_uses_categorical_ones(mixed):
    from bnclassify import SPODE

    X, y = mixed
    with pytest.raises(ValueError, match="super-parent must be categorical"):
        SPODE(superparent="mean radius").fit(X, y)
    model = AODE().fit(X, y)
    assert model.superparents_ == ["concavity", "area"]
    assert [m.superparent for m in model.estimators_] == ["concavity", "area"]


def test_ensembles_root_mixed_trees_at_categorical_features(mixed):
    X, y = mixed
    contacts = np.ones((6, 6))
    model = EnsembleTAN(contact_matrix=contacts, members="all").fit(X, y)
    roots = {m.root for m in model.estimators_}
    assert roots == {"concavity", "area"}


def test_every_node_is_a_factor_with_its_parameter_count(mixed):
    X, y = mixed
    model = TAN().fit(X, y)
    nodes = model.distributions_
    assert set(nodes) == set(X.columns)
    assert all(isinstance(node, Factor) for node in nodes.values())
    assert model.n_parameters_ == 1 + sum(node.n_parameters_ for node in nodes.values())
    with pytest.raises(AttributeError, match="cannot hold the continuous features"):
        model.network_  # noqa: B018


def test_simpler_tan_on_mixed_data_follows_the_contacts(mixed):
    X, y = mixed
    contacts = np.zeros((6, 6))
    contacts[4, 0] = contacts[0, 4] = 5.0  # concavity - mean radius
    contacts[4, 5] = contacts[5, 4] = 3.0  # concavity - area
    model = SimplerTAN(contacts).fit(X, y)
    assert model.structure_.has_edge("concavity", "mean radius")
    # the root is the first categorical feature by name, "area" (not the first by position)
    assert model.structure_.has_edge("area", "concavity")


def test_the_base_class_is_abstract():
    from bnclassify import AugmentedNaiveBayes

    with pytest.raises(TypeError, match="abstract"):
        AugmentedNaiveBayes()


def test_no_module_imports_another_modules_private_names():
    import pathlib
    import re

    root = pathlib.Path(__file__).resolve().parent.parent / "bnclassify"
    pattern = re.compile(r"^\s*from \.+[\w.]* import .*\b_[a-z]", re.MULTILINE)
    # the compiled extension is private to the _native package, loaded by its runtime module
    extension = re.compile(r"^\s*from \. import _kernels as kernels$", re.MULTILINE)
    offenders = [
        str(path.relative_to(root))
        for path in root.rglob("*.py")
        if pattern.search(extension.sub("", path.read_text()))
    ]
    assert offenders == []
    users = [
        str(p.relative_to(root)) for p in root.rglob("*.py") if extension.search(p.read_text())
    ]
    assert users == ["_native/runtime.py"]
