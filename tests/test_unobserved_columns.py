"""A column with no observed value in the training rows (issue 32 item 1): a note, not a refusal.

The cases come from UCI tables read with ``pd.read_csv``: hypothyroid's and sick's ``TBG``
(a float column always empty), anneal's text columns that are empty in the whole file, and
anneal's ``bc`` or heart.h's columns, observed in a few rows that a training fold may miss.
Such a column carries no information: the fit leaves it out (one warning naming it), and at
prediction whatever it holds is read as missing, with no warning.
"""

import warnings

import matplotlib
import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.model_selection import StratifiedKFold

from bnclassify import (
    AODE,
    BMATAN,
    BSEJ,
    FSSJ,
    HNB,
    KDB,
    KDBHC,
    SPODE,
    TAN,
    TANHC,
    TANHCSP,
    AnDE,
    EnsembleTAN,
    NaiveBayes,
    SimplerTAN,
)
from bnclassify.classifiers import AWNB, WANBIA
from bnclassify.exceptions import OutOfCoreError, UnobservedColumnWarning
from bnclassify.explain import explain
from bnclassify.factors import UNOBSERVED_STATE
from bnclassify.io import dump, load

matplotlib.use("Agg")


def _table(n=90, seed=0):
    """Two informative columns, a Gaussian, an all-NaN float column (TBG) and an object
    column whose every cell is missing (anneal's 'm')."""
    rng = np.random.default_rng(seed)
    y = pd.Series(rng.choice(["neg", "pos"], n), name="class")
    sick = (y == "pos").to_numpy()
    X = pd.DataFrame(
        {
            "on_thyroxine": np.where(sick, rng.choice(["f", "t"], n, p=[0.8, 0.2]), "f"),
            "sex": rng.choice(["F", "M"], n),
            "TSH": rng.normal(np.where(sick, 3.0, 1.0), 1.0),
            "TBG": np.nan,
            "m": pd.Series([None] * n, dtype=object),
        }
    )
    return X, y


def _contacts(m):
    return np.add.outer(np.arange(m), np.arange(m)) + 1.0


ESTIMATORS = {
    "NaiveBayes": lambda m: NaiveBayes(),
    "TAN": lambda m: TAN(),
    "TAN-bic": lambda m: TAN(criterion="bic"),
    "TAN-conditional": lambda m: TAN(objective="conditional", l2=1.0),
    "SimplerTAN": lambda m: SimplerTAN(_contacts(m)),
    "KDB1": lambda m: KDB(k=1),
    "KDB2": lambda m: KDB(k=2),
    "SPODE": lambda m: SPODE(),
    "AODE": lambda m: AODE(),
    "EnsembleTAN": lambda m: EnsembleTAN(),
    "EnsembleTAN-bootstrap": lambda m: EnsembleTAN(bootstrap=True, n_estimators=3, random_state=0),
    "TANHC": lambda m: TANHC(random_state=0),
    "TANHCSP": lambda m: TANHCSP(random_state=0),
    "FSSJ": lambda m: FSSJ(random_state=0),
    "BSEJ": lambda m: BSEJ(random_state=0),
    "KDBHC": lambda m: KDBHC(random_state=0),
    "AWNB": lambda m: NaiveBayes(weighting=AWNB(random_state=0)),
    "WANBIA": lambda m: NaiveBayes(weighting=WANBIA()),
    "HNB": lambda m: HNB(),
    "A2DE": lambda m: AnDE(n=2),
}


def _fit_noting(model, X, y):
    """Fit, asserting one UnobservedColumnWarning that names the empty columns."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.fit(X, y)
    notes = [w.message for w in caught if issubclass(w.category, UnobservedColumnWarning)]
    assert len(notes) == 1, [str(w.message) for w in caught]
    assert notes[0].columns == ["TBG", "m"]
    return model


@pytest.mark.parametrize("name", ESTIMATORS)
def test_every_estimator_leaves_an_empty_column_out(name):
    X, y = _table()
    model = _fit_noting(ESTIMATORS[name](X.shape[1]), X, y)
    assert model.feature_kinds_[3:] == ["unobserved", "unobserved"]
    # whatever the columns hold at prediction, it is read as missing, without a warning
    # (the suite turns warnings into errors)
    held = X.assign(TBG=np.linspace(-1e6, 1e6, len(X)), m=["zz"] * len(X))
    np.testing.assert_array_equal(model.predict_proba(held), model.predict_proba(X))
    # the model is the one fitted without them (Simpler TAN's tree aside: cut, see below)
    if name != "SimplerTAN":
        kept = X.drop(columns=["TBG", "m"])
        alone = ESTIMATORS[name](kept.shape[1]).fit(kept, y)
        np.testing.assert_allclose(model.predict_proba(X), alone.predict_proba(kept), atol=1e-12)


def test_aode_on_categorical_columns_and_an_empty_one():
    # every column categorical: AODE's streamed prediction read each column as a
    # super-parent and asked the empty column's node for a table it does not have
    # (AttributeError: 'Unobserved' object has no attribute 'log_table_')
    X, y = _table()
    X = X.drop(columns=["TSH", "TBG"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnobservedColumnWarning)
        model = AODE().fit(X, y)
    assert model.superparents_ == ["on_thyroxine", "sex"]
    kept = X.drop(columns="m")
    alone = AODE().fit(kept, y)
    np.testing.assert_allclose(model.predict_proba(X), alone.predict_proba(kept), atol=1e-12)
    held = X.assign(m=["zz"] * len(X))
    np.testing.assert_array_equal(model.predict_proba(held), model.predict_proba(X))


def test_bmatan_averages_the_trees_over_the_observed_columns():
    X, y = _table()
    X = X.drop(columns="TSH")  # BMATAN averages categorical trees
    model = _fit_noting(BMATAN(), X, y)
    kept = X.drop(columns=["TBG", "m"])
    alone = BMATAN().fit(kept, y)
    np.testing.assert_allclose(model.predict_proba(X), alone.predict_proba(kept), atol=1e-12)
    assert list(model.edge_posterior_.columns) == ["on_thyroxine", "sex"]
    assert set(model.structure_.nodes) == {"class", *X.columns}
    assert model.network_.get_cpds("TBG").state_names["TBG"] == [UNOBSERVED_STATE]


def test_a_column_observed_only_in_test_folds():
    # anneal's 'bc' and heart.h: a few observed cells, none in some training folds
    X, y = _table(n=100, seed=1)
    X = X.drop(columns=["TBG", "m"])
    rows = np.flatnonzero(y.to_numpy() == "pos")[:3]
    X["bc"] = pd.Series([None] * len(X), dtype=object)
    X.loc[rows, "bc"] = "Y"
    folds = StratifiedKFold(5, shuffle=True, random_state=0).split(X, y)
    for model in (NaiveBayes(), TAN(), KDB(k=2), AODE()):
        for train, test in folds:
            empty = X["bc"].iloc[train].isna().all()
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                fitted = clone(model).fit(X.iloc[train], y.iloc[train])
            assert len(caught) == int(empty)
            proba = fitted.predict_proba(X.iloc[test])  # 'Y' unseen in fit: no warning
            assert np.isfinite(proba).all()


def test_every_column_empty_gives_the_class_prior():
    X = pd.DataFrame({"a": [np.nan] * 4, "b": pd.Series([None] * 4, dtype=object)})
    with pytest.warns(UnobservedColumnWarning):
        model = TAN().fit(X, ["x", "x", "x", "y"])
    # the Laplace-smoothed class prior, (3 + 1) / (4 + 2) and (1 + 1) / (4 + 2)
    np.testing.assert_allclose(model.predict_proba(X), [[2 / 3, 1 / 3]] * 4)
    with pytest.warns(UnobservedColumnWarning), pytest.raises(ValueError, match="no tree"):
        BMATAN().fit(X, ["x", "x", "x", "y"])  # averages trees over no column: said so


def test_simpler_tan_cuts_an_empty_column_out_of_its_contact_tree():
    # the contacts i + j + 1 make the last column every other's neighbour: empty, it leaves
    # the others as roots of their own (here single-node) trees
    X, y = _table()
    X = X[["on_thyroxine", "sex", "m"]]
    model = _fit_noting_some(SimplerTAN(_contacts(3)), X, y)
    assert [e for e in model.structure_.edges if e[0] != model.class_node_] == []


def test_simpler_tan_keeps_counting_with_an_empty_last_column_in_its_contact_tree():
    # every pair in contact, the empty column last (by position and by name): the tree's
    # statistics kept for partial_fit read its zero-width family past the table's end
    X, y = _table()
    X = X[["on_thyroxine", "sex", "m"]].set_axis(["a", "b", "t"], axis=1)
    contacts = np.ones((3, 3)) - np.eye(3)
    model = _fit_noting_some(SimplerTAN(contacts), X, y)
    model.partial_fit(X, y)
    twice = pd.concat([X, X], ignore_index=True), pd.concat([y, y], ignore_index=True)
    whole = _fit_noting_some(SimplerTAN(contacts), *twice)
    np.testing.assert_allclose(model.predict_proba(X), whole.predict_proba(X), atol=1e-12)


def _fit_noting_some(model, X, y):
    with pytest.warns(UnobservedColumnWarning):
        return model.fit(X, y)


@pytest.mark.parametrize(
    "make", [NaiveBayes, TAN, lambda: KDB(k=2), AODE, lambda: SimplerTAN(_contacts(6))]
)
def test_partial_fit_models_a_column_once_a_chunk_observes_it(make, densities):
    # densities: whose statistics add up over chunks (binned columns need their cut points
    # fixed first); TBG's Gaussian is named: with no value seen, the rule's choice is open
    X, y = _table(n=120, seed=2)
    X["late"] = pd.Series([None] * 80 + ["a", "b"] * 20, dtype=object)
    X.loc[X.index[80:], "m"] = "x"
    model = make().set_params(distributions={"TBG": "gaussian"})
    with pytest.raises(OutOfCoreError, match="'TBG'"):
        make().partial_fit(X.iloc[:40], y.iloc[:40], classes=["neg", "pos"])
    with pytest.warns(UnobservedColumnWarning) as caught:
        model.partial_fit(X.iloc[:40], y.iloc[:40], classes=["neg", "pos"])
    assert caught[0].message.columns == ["TBG", "m", "late"]
    model.partial_fit(X.iloc[40:80], y.iloc[40:80])  # the same columns still empty: no note
    assert model.feature_kinds_[3:] == ["unobserved"] * 3
    model.partial_fit(X.iloc[80:], y.iloc[80:])
    assert model.feature_kinds_[3:] == ["unobserved", "categorical", "categorical"]
    with pytest.warns(UnobservedColumnWarning):
        whole = make().fit(X, y)
    assert whole.feature_kinds_ == model.feature_kinds_
    np.testing.assert_allclose(model.predict_proba(X), whole.predict_proba(X), atol=1e-12)


def test_model_files_and_pgmpy_keep_the_empty_columns():
    X, y = _table()
    X = X.drop(columns="TSH")  # pgmpy's discrete networks hold categorical nodes
    model = _fit_noting(TAN(), X, y)
    network = model.network_
    cpd = network.get_cpds("m")
    assert cpd.state_names["m"] == [UNOBSERVED_STATE] and np.allclose(cpd.values, 1.0)
    from pgmpy.inference import VariableElimination

    evidence = X.iloc[0][["on_thyroxine", "sex"]].to_dict()
    query = VariableElimination(network).query(
        [model.class_node_], evidence=evidence, show_progress=False
    )
    np.testing.assert_allclose(query.values, model.predict_proba(X.iloc[[0]])[0], atol=1e-12)


def test_model_file_round_trip(tmp_path):
    X, y = _table()
    model = _fit_noting(KDB(k=2), X, y)
    same = load(dump(model, tmp_path / "kdb.bnc"))
    assert same.feature_kinds_ == model.feature_kinds_
    np.testing.assert_array_equal(same.predict_proba(X), model.predict_proba(X))


def test_explanations_give_an_empty_column_nothing():
    X, y = _table()
    model = _fit_noting(TAN(), X, y)
    for method, background in (("interventional", X), ("conditional", None)):
        values = explain(model, X.iloc[:4], background=background, method=method).values
        assert np.allclose(values[:, 3:], 0.0), method


def test_plots_draw_an_empty_column():
    import matplotlib.pyplot as plt

    from bnclassify.plotting import plot_cpt, plot_inference, plot_structure

    X, y = _table()
    model = _fit_noting(TAN(), X.drop(columns="TSH"), y)
    for figure in (
        plot_structure(model),
        plot_cpt(model, "m"),
        plot_inference(model, {"sex": "F"}),
    ):
        assert figure is not None
        plt.close("all")


@pytest.mark.parametrize(
    "empty",
    [
        pd.Series([np.nan] * 6),  # pd.read_csv's float column of empty cells
        pd.Series([None] * 6, dtype=object),
        pd.Series([None] * 6, dtype="string[pyarrow]"),
        pd.Series([pd.NA] * 6, dtype="Int64"),
        pd.Series(pd.Categorical([None] * 6, categories=["a", "b"])),  # declared, never seen
    ],
    ids=["float", "object", "arrow", "Int64", "category"],
)
def test_every_form_of_an_empty_column(empty):
    X = pd.DataFrame({"x": ["u", "v", "u", "v", "u", "v"], "empty": empty})
    with pytest.warns(UnobservedColumnWarning):
        model = TAN().fit(X, [0, 1, 0, 1, 0, 0])
    assert model.feature_kinds_ == ["categorical", "unobserved"]
    assert np.isfinite(model.predict_proba(X.assign(empty=empty.iloc[::-1].to_numpy()))).all()
