"""Every estimator whose nodes can be numeric takes ``distributions`` (issue 32, item 3).

The default bins a numeric column; ``distributions="density"`` gives it a density node
(the default before the switch to bins), in the fitted nodes themselves, not only in the
schema; a model whose nodes are all tables (SKDB, ESKDB, BMATAN) refuses a density by
name and reads ``distributions`` as which columns it cuts. Each case can fail: an
estimator that ignored the parameter would fit the same nodes both ways.
"""

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from bnclassify import (
    AODE,
    BMATAN,
    ESKDB,
    KDB,
    SKDB,
    SPODE,
    EnsembleTAN,
)
from bnclassify.distributions import Binned
from bnclassify.exceptions import ContinuousFeaturesError, InvalidParameterError, OutOfCoreError
from bnclassify.io import dump, load

DENSITY_KINDS = {"gaussian", "lognormal"}


@pytest.fixture(scope="module")
def table():
    """120 rows: a string column, a float column that tells the classes apart, and an
    integer column of many values (both numeric by the kinds rule), class as strings."""
    rng = np.random.default_rng(0)
    y = np.repeat(["low", "high"], 60)
    X = pd.DataFrame(
        {
            "site": rng.choice(["a", "b", "c"], size=120),
            "size": np.where(y == "high", 3.0, 0.0) + rng.normal(size=120),
            "dose": rng.integers(0, 60, size=120) + np.where(y == "high", 30, 0),
        }
    )
    return X, y


def _first_member(model):
    return model.estimators_[0]


#: name -> (model with ``distributions=d``, the fitted network whose nodes are read)
NETWORKS = {
    "KDB": (lambda d: KDB(k=2, distributions=d), lambda m: m),
    "SPODE": (lambda d: SPODE(distributions=d), lambda m: m),
    "AODE": (lambda d: AODE(distributions=d), _first_member),
    "EnsembleTAN": (lambda d: EnsembleTAN(distributions=d), _first_member),
    "EnsembleTAN-members": (
        lambda d: EnsembleTAN(members=KDB(k=1), bootstrap=True, n_estimators=2, distributions=d),
        _first_member,
    ),
}


def _node_kinds(network) -> dict:
    return {f.columns_[0]: f.kind for f in network.compiled_.factors}


@pytest.mark.parametrize("name", list(NETWORKS))
def test_density_gives_density_nodes_and_the_default_bins(name, table):
    X, y = table
    make, network_of = NETWORKS[name]
    binned = make(None).fit(X, y)
    density = make("density").fit(X, y)
    by_default, as_density = _node_kinds(network_of(binned)), _node_kinds(network_of(density))
    assert by_default == {"site": "categorical", "size": "binned", "dose": "binned"}
    assert as_density["site"] == "categorical"
    assert {as_density["size"], as_density["dose"]} <= DENSITY_KINDS
    assert binned.feature_kinds_ == ["categorical", "binned", "binned"]
    assert binned.feature_kinds_ != density.feature_kinds_
    assert not np.allclose(binned.predict_proba(X), density.predict_proba(X))


@pytest.mark.parametrize("name", list(NETWORKS))
def test_a_node_by_name_and_a_clone(name, table):
    X, y = table
    make, network_of = NETWORKS[name]
    model = make({"dose": "gaussian", "size": "categorical"})
    copy = clone(model)
    assert copy.get_params()["distributions"] == {"dose": "gaussian", "size": "categorical"}
    kinds = _node_kinds(network_of(copy.fit(X, y)))
    assert kinds == {"site": "categorical", "size": "categorical", "dose": "gaussian"}


@pytest.mark.parametrize("name", ["KDB", "SPODE", "AODE", "EnsembleTAN"])
def test_density_models_persist(name, table, tmp_path):
    X, y = table
    make, _ = NETWORKS[name]
    model = make("density").fit(X, y)
    loaded = load(dump(model, tmp_path / "model.bnc"))
    assert loaded.get_params()["distributions"] == "density"
    assert loaded.feature_kinds_ == model.feature_kinds_
    np.testing.assert_allclose(loaded.predict_proba(X), model.predict_proba(X))


def test_pgmpy_export_takes_bins_and_names_the_densities(table):
    X, y = table
    assert KDB(k=2).fit(X, y).network_.check_model()
    with pytest.raises(ContinuousFeaturesError, match="size"):
        KDB(k=2, distributions="density").fit(X, y).network_  # noqa: B018


def test_partial_fit_keeps_the_density_nodes(table):
    X, y = table
    # 'dose' is positive: the rule's log-normal-or-Gaussian choice reads all the rows, so
    # partial_fit asks for it by name ('size' holds values <= 0: Gaussian whatever comes)
    with pytest.raises(OutOfCoreError, match="'dose'") as refused:
        AODE(distributions="density").partial_fit(X[:60], y[:60], classes=["high", "low"])
    assert refused.value.columns == ["dose"]
    whole = AODE(distributions="density").fit(X, y)
    named = {"size": "gaussian", "dose": whole.feature_kinds_[2]}
    model = AODE(distributions=named).partial_fit(X[:60], y[:60], classes=["high", "low"])
    model.partial_fit(X[60:], y[60:])
    assert model.feature_kinds_ == whole.feature_kinds_
    assert set(model.feature_kinds_[1:]) <= DENSITY_KINDS
    np.testing.assert_allclose(model.predict_proba(X), whole.predict_proba(X))


# -- models whose nodes are all tables -----------------------------------------------------
TABLES = {
    "SKDB": lambda d: SKDB(k=1, distributions=d),
    "ESKDB": lambda d: ESKDB(n_estimators=2, k=1, random_state=0, distributions=d),
    "BMATAN": lambda d: BMATAN(distributions=d),
}


def _cuts(model) -> list:
    members = getattr(model, "estimators_", None)
    return (members[0] if members else model).cut_points_


@pytest.mark.parametrize("name", list(TABLES))
@pytest.mark.parametrize("spec", ["density", "gaussian", {"size": "lognormal"}])
def test_table_models_refuse_a_density_by_name(name, spec, table):
    X, y = table
    with pytest.raises(InvalidParameterError, match=rf"^{name}: distributions: .* is a table"):
        TABLES[name](spec).fit(X, y)


@pytest.mark.parametrize("name", list(TABLES))
def test_table_models_refuse_given_cut_points_by_name(name, table):
    X, y = table
    with pytest.raises(InvalidParameterError, match=rf"^{name}: .*'size' gives cut points"):
        TABLES[name]({"size": Binned(cut_points=[1.0])}).fit(X, y)


@pytest.mark.parametrize("name", list(TABLES))
def test_table_models_cut_what_distributions_says(name, table):
    X, y = table
    make = TABLES[name]
    default = make(None).fit(X, y)
    assert [c is not None for c in _cuts(default)] == [False, True, True]
    kept = clone(make({"dose": "categorical"})).fit(X, y)  # many values, kept as categories
    assert [c is not None for c in _cuts(kept)] == [False, True, False]
    assert len(kept.categories_[2]) == X["dose"].nunique()
    assert not np.allclose(default.predict_proba(X), kept.predict_proba(X))
    none = make("categorical").fit(X, y)
    assert all(c is None for c in _cuts(none))


@pytest.mark.parametrize("name", list(TABLES))
def test_table_models_persist_their_distributions(name, table, tmp_path):
    X, y = table
    model = TABLES[name]({"dose": "categorical"}).fit(X, y)
    loaded = load(dump(model, tmp_path / "model.bnc"))
    assert loaded.get_params()["distributions"] == {"dose": "categorical"}
    np.testing.assert_allclose(loaded.predict_proba(X), model.predict_proba(X))


def test_a_dask_fit_reads_the_parameter(table):
    dd = pytest.importorskip("dask.dataframe")
    X, y = table
    model = AODE(distributions="density").fit(
        dd.from_pandas(X, npartitions=2), dd.from_pandas(pd.Series(y), npartitions=2)
    )
    whole = AODE(distributions="density").fit(X, y)
    assert set(model.feature_kinds_[1:]) <= DENSITY_KINDS
    np.testing.assert_allclose(model.predict_proba(X), whole.predict_proba(X))
