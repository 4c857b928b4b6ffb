"""EnsembleTAN: the study's three ensembles, bootstrap bagging, shared counts and trees."""

import numpy as np
import pandas as pd
import pytest
from _checks import parametrize_with_checks
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score

from bnclassify import KDB, TAN, EnsembleTAN, NaiveBayes, SimplerTAN
from bnclassify import weights as weights_module
from bnclassify.classifiers import AugmentedNaiveBayes
from bnclassify.datasets import load_lactamase, load_p450, load_vote
from bnclassify.stats import training_statistics


@pytest.fixture(scope="module")
def p450():
    return load_p450()


def feature_edges(model):
    return {frozenset(e) for e in model.structure_.edges() if model.class_node_ not in e}


def member_mean(model, X):
    return np.mean([m.predict_proba(X) for m in model.estimators_], axis=0)


# -- what the ensemble is -----------------------------------------------------------------
@pytest.mark.parametrize(
    "params",
    [
        {"members": "stan"},
        {"members": "tan"},
        {"members": "stan+tan"},
        {"members": "all"},
        {"members": TAN(criterion="bic")},
        {"members": [KDB(k=2), NaiveBayes(alpha=0.5), SimplerTAN(root="block8")]},
        {"members": "stan+tan", "bootstrap": True, "n_estimators": 7, "random_state": 3},
        {"members": KDB(k=1), "bootstrap": True, "n_estimators": 4, "random_state": 0},
    ],
    ids=["stan", "tan", "stan+tan", "all", "template", "list", "bagging", "bagging-kdb"],
)
def test_probabilities_are_the_mean_of_the_members(p450, params):
    params = {"contact_matrix": p450.contact_matrix, **params}
    if isinstance(params["members"], list):
        params["members"][2].set_params(contact_matrix=p450.contact_matrix)
    model = EnsembleTAN(**params).fit(p450.data, p450.target)
    proba = model.predict_proba(p450.data)
    np.testing.assert_allclose(proba, member_mean(model, p450.data), rtol=0, atol=1e-12)
    np.testing.assert_allclose(np.exp(model.predict_log_proba(p450.data)), proba, atol=1e-12)
    np.testing.assert_array_equal(model.predict(p450.data), model.classes_[proba.argmax(1)])
    for member in model.estimators_:
        assert isinstance(member, AugmentedNaiveBayes)
        assert member.network_.check_model()  # a real fitted network per member


def test_missing_values_are_summed_out_by_every_member():
    X, y = load_vote(return_X_y=True)
    incomplete = X.isna().any(axis=1)
    for params in ({"members": "tan"}, {"bootstrap": True, "n_estimators": 3, "random_state": 1}):
        model = EnsembleTAN(**params).fit(X, y)
        np.testing.assert_allclose(
            model.predict_proba(X[incomplete]), member_mean(model, X[incomplete]), atol=1e-12
        )


def test_members_follow_the_study(p450):
    X, y, contacts = p450.data, p450.target, p450.contact_matrix
    features = list(X.columns)

    def summary(model):
        return [(type(m).__name__, m.root) for m in model.estimators_]

    stan = EnsembleTAN(contacts, members="stan").fit(X, y)
    assert summary(stan) == [("SimplerTAN", f) for f in features]
    tan = EnsembleTAN(members="tan").fit(X, y)
    assert summary(tan) == [("TAN", f) for f in features]
    both = EnsembleTAN(contacts, members="stan+tan").fit(X, y)
    assert summary(both) == [("TAN", f) for f in features] + [("SimplerTAN", "block1")]
    every = EnsembleTAN(contacts, members="all").fit(X, y)
    assert summary(every) == summary(stan) + summary(tan)
    # default: the study's best with a contact matrix, TAN bagging without
    assert summary(EnsembleTAN(contacts).fit(X, y)) == summary(both)
    assert summary(EnsembleTAN().fit(X, y)) == summary(tan)


def test_each_member_equals_the_same_model_fitted_alone(p450):
    model = EnsembleTAN(p450.contact_matrix, members="all").fit(p450.data, p450.target)
    for member in model.estimators_:
        alone = clone(member).fit(p450.data, p450.target)
        assert set(alone.structure_.edges()) == set(member.structure_.edges())
        np.testing.assert_allclose(
            alone.predict_proba(p450.data), member.predict_proba(p450.data), rtol=0, atol=1e-12
        )
        for ours, theirs in zip(member.compiled_.factors, alone.compiled_.factors, strict=True):
            np.testing.assert_allclose(ours.log_table_, theirs.log_table_, rtol=0, atol=1e-12)


@pytest.mark.parametrize("members", ["stan", "tan"])
def test_members_rooted_differently_share_one_tree(p450, members):
    model = EnsembleTAN(p450.contact_matrix, members=members).fit(p450.data, p450.target)
    first = model.estimators_[0]
    for member in model.estimators_:
        assert member.weights_ is first.weights_  # one weight matrix, not recomputed
        assert feature_edges(member) == feature_edges(first)  # one tree ...
        assert member.structure_.in_degree(member.root) == 1  # ... oriented from its own root
    arcs = {tuple(sorted(m.structure_.edges())) for m in model.estimators_}
    assert len(arcs) == len(model.estimators_)


def test_conditional_mutual_information_is_computed_once(p450, monkeypatch):
    calls = []
    original = weights_module.pairwise_information

    def counting(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(weights_module, "pairwise_information", counting)
    EnsembleTAN(p450.contact_matrix, members="all").fit(p450.data, p450.target)
    assert len(calls) == 1
    calls.clear()
    EnsembleTAN(members="tan", bootstrap=True, n_estimators=3).fit(p450.data, p450.target)
    assert len(calls) == 3  # bagging: one per sample, by design


class _ReadCounter(np.ndarray):
    """The training codes, counting every read of their rows."""

    reads = 0

    def __getitem__(self, key):
        _ReadCounter.reads += 1
        return np.asarray(self).__getitem__(key)


def _rows_read(monkeypatch, model, X, y):
    """How often the encoded rows are indexed while ``model`` is fitted."""
    from bnclassify.classifiers import _base, _ensemble

    original = training_statistics

    def spying(*args, **kwargs):
        schema, classes, counts = original(*args, **kwargs)
        counts.codes = counts.codes.view(_ReadCounter)
        return schema, classes, counts

    for module in (_base, _ensemble):  # where single models and ensembles count their rows
        monkeypatch.setattr(module, "training_statistics", spying)
    _ReadCounter.reads = 0
    model.fit(X, y)
    monkeypatch.undo()
    return _ReadCounter.reads


@pytest.mark.parametrize(
    ("members", "single"),
    [("stan", SimplerTAN), ("tan", TAN), ("all", TAN)],
)
def test_the_ensemble_reads_the_rows_no_more_than_one_member_does(
    p450, monkeypatch, members, single
):
    X, y, contacts = p450.data, p450.target, p450.contact_matrix
    alone = single(contacts) if single is SimplerTAN else single()
    one = _rows_read(monkeypatch, alone, X, y)
    assert one > 0
    ensemble = _rows_read(monkeypatch, EnsembleTAN(contacts, members=members), X, y)
    assert ensemble <= one


# -- bagging ------------------------------------------------------------------------------
def test_bootstrap_members_are_models_of_their_samples(p450):
    X, y = p450.data, p450.target
    model = EnsembleTAN(
        p450.contact_matrix, members="stan+tan", bootstrap=True, n_estimators=12, random_state=0
    ).fit(X, y)
    assert len(model.estimators_) == len(model.estimators_samples_) == 12
    kinds = [(type(m).__name__, m.root) for m in model.estimators_]
    # cycling through the 9 study members: 8 TANs, then the Simpler TAN, then TANs again
    assert kinds[:9] == [("TAN", f) for f in X.columns] + [("SimplerTAN", "block1")]
    assert kinds[9:] == [("TAN", f) for f in X.columns[:3]]
    for member, rows in zip(model.estimators_, model.estimators_samples_, strict=True):
        assert len(rows) == len(X) and len(np.unique(rows)) < len(X)
        alone = clone(member).fit(X.iloc[rows], y.iloc[rows])
        np.testing.assert_allclose(
            alone.predict_proba(X), member.predict_proba(X), rtol=0, atol=1e-12
        )


def test_bootstrap_is_reproducible_and_independent_of_n_jobs(p450):
    X, y = p450.data, p450.target
    params = {"members": "tan", "bootstrap": True, "n_estimators": 6}
    a = EnsembleTAN(random_state=7, **params).fit(X, y)
    b = EnsembleTAN(random_state=7, n_jobs=2, **params).fit(X, y)
    c = EnsembleTAN(random_state=8, **params).fit(X, y)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    for ra, rb in zip(a.estimators_samples_, b.estimators_samples_, strict=True):
        np.testing.assert_array_equal(ra, rb)
    assert not np.allclose(a.predict_proba(X), c.predict_proba(X))


def test_bootstrap_members_keep_categories_absent_from_their_sample():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.choice(["a", "b"], size=(60, 3)), columns=["u", "v", "w"])
    X.loc[0, "u"] = "rare"  # one row: most bootstrap samples miss it
    y = rng.choice(["no", "yes"], size=60)
    model = EnsembleTAN(bootstrap=True, n_estimators=8, random_state=0).fit(X, y)
    missed = [0 not in rows for rows in model.estimators_samples_]
    assert any(missed)
    for member in model.estimators_:
        assert list(member.categories_[0]) == ["a", "b", "rare"]
        assert list(member.classes_) == ["no", "yes"]
    assert np.isfinite(model.predict_proba(X.iloc[:1])).all()


# some columns are constant within a class: the ZeroVarianceWarning is right, not the subject
@pytest.mark.filterwarnings("ignore::bnclassify.exceptions.ZeroVarianceWarning")
@pytest.mark.usefixtures("densities")  # the members' Gaussian nodes
def test_bagging_continuous_features():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = (X[:, 0] + X[:, 1] * X[:, 2] > 0).astype(int)
    model = EnsembleTAN(bootstrap=True, n_estimators=4, random_state=0).fit(X, y)
    np.testing.assert_allclose(model.predict_proba(X), member_mean(model, X), atol=1e-12)
    rows = model.estimators_samples_[2]
    alone = clone(model.estimators_[2]).fit(X[rows], y[rows])  # densities, not CPTs
    np.testing.assert_allclose(alone.predict_proba(X), model.estimators_[2].predict_proba(X))
    # a class a sample lacks: its densities borrow the fit over all classes, as an empty
    # (class, parent state) group does in any fit; the prior keeps it possible
    y_rare = np.r_[np.zeros(10, dtype=int), 1, 2]
    rare = EnsembleTAN(bootstrap=True, n_estimators=5, random_state=0).fit(X[:12], y_rare)
    lacking = [
        m
        for m, rows in zip(rare.estimators_, rare.estimators_samples_, strict=True)
        if not {1, 2} <= set(y_rare[rows])
    ]
    assert lacking  # the case is exercised
    proba = rare.predict_proba(X)
    assert np.isfinite(proba).all() and np.allclose(proba.sum(axis=1), 1.0)
    assert (proba[:, 1:] > 0).all()


def test_shared_fit_in_parallel_equals_sequential(p450):
    X, y = p450.data, p450.target
    one = EnsembleTAN(p450.contact_matrix, members="all").fit(X, y)
    two = EnsembleTAN(p450.contact_matrix, members="all", n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(one.predict_proba(X), two.predict_proba(X))


# -- the study's figures ------------------------------------------------------------------
def _study_cv(model, X, y):
    accuracy, cll = [], []
    for train, test in KFold(10, shuffle=True, random_state=42).split(X):
        fitted = clone(model).fit(X.iloc[train], y.iloc[train])
        proba = fitted.predict_proba(X.iloc[test])
        truth = np.searchsorted(fitted.classes_, y.iloc[test].to_numpy())
        accuracy.append(np.mean(proba.argmax(1) == truth))
        cll.append(np.log2(proba[np.arange(len(test)), truth]).sum())
    return round(float(np.mean(accuracy)), 3), round(float(np.mean(cll)), 2)


def _study_tan(features, root):
    # the study's TAN tree: features attached in column order (see SOURCES.md)
    return KDB(k=1, order=[features[root], *(f for f in features if f != features[root])])


@pytest.mark.parametrize(
    ("dataset", "expected"),
    [
        ("p450", {"stan": (0.842, -52.14), "tan": (0.849, -52.31), "stan+tan": (0.850, -51.71)}),
        (
            "lactamase",
            {"stan": (0.893, -20.57), "tan": (0.895, -21.47), "stan+tan": (0.902, -21.12)},
        ),
    ],
)
def test_the_study_ensembles_reproduce_its_reported_figures(dataset, expected):
    bunch = load_p450() if dataset == "p450" else load_lactamase()
    X, y = bunch.data, bunch.target
    if dataset == "lactamase":  # the study's loader skipped the file's first row
        X, y = X.iloc[1:].reset_index(drop=True), y.iloc[1:].reset_index(drop=True)
    features = list(X.columns)
    trees = [_study_tan(features, r) for r in range(len(features))]
    models = {
        "stan": EnsembleTAN(bunch.contact_matrix, members="stan"),
        "tan": EnsembleTAN(members=trees),
        "stan+tan": EnsembleTAN(members=[*trees, SimplerTAN(bunch.contact_matrix)]),
    }
    assert {name: _study_cv(model, X, y) for name, model in models.items()} == expected


# -- the scikit-learn contract -------------------------------------------------------------
def test_works_in_cross_validation_and_grid_search(p450):
    X, y = p450.data, p450.target
    cv = KFold(3, shuffle=True, random_state=0)  # the rows are ordered by chimera
    scores = cross_val_score(EnsembleTAN(p450.contact_matrix), X, y, cv=cv)
    assert scores.shape == (3,) and (scores > 0.8).all()
    search = GridSearchCV(
        EnsembleTAN(p450.contact_matrix), {"members": ["stan", "tan", "stan+tan"]}, cv=cv
    ).fit(X, y)
    assert search.best_params_["members"] in {"stan", "tan", "stan+tan"}


def test_parameters_are_stored_as_given_and_templates_stay_unfitted(p450):
    template = TAN(criterion="bic")
    model = EnsembleTAN(members=template, n_jobs=1)
    assert model.get_params()["members"] is template
    assert model.get_params()["members__criterion"] == "bic"
    model.fit(p450.data, p450.target)
    assert not hasattr(template, "structure_")
    assert clone(model).get_params()["members"].get_params() == template.get_params()


@pytest.mark.parametrize(
    ("params", "error", "message"),
    [
        ({"members": "stan"}, ValueError, "needs a contact_matrix"),
        ({"members": "bagging"}, ValueError, "members must be one of"),
        ({"members": LogisticRegression()}, TypeError, "Bayesian network classifiers"),
        ({"members": [TAN(), LogisticRegression()]}, TypeError, "Bayesian network classifiers"),
        ({"members": []}, TypeError, "non-empty list"),
        ({"members": NaiveBayes()}, ValueError, "has no root"),
        ({"n_estimators": 0}, ValueError, "n_estimators must be an integer >= 1"),
        ({"n_estimators": 2.5}, ValueError, "n_estimators must be an integer >= 1"),
        ({"bootstrap": "yes"}, ValueError, "bootstrap must be True or False"),
        ({"alpha": -1.0}, ValueError, "alpha"),
    ],
)
def test_bad_parameters_raise_clear_errors(p450, params, error, message):
    with pytest.raises(error, match=message):
        EnsembleTAN(**params).fit(p450.data, p450.target)


def test_prediction_errors_name_the_ensemble(p450):
    model = EnsembleTAN(handle_unknown="error").fit(p450.data, p450.target)
    with pytest.raises(ValueError, match="X has 3 features, but EnsembleTAN is expecting 8"):
        model.predict(p450.data.to_numpy()[:, :3])
    with pytest.raises(ValueError, match="not_a_block"):
        model.predict(p450.data.rename(columns={"block1": "not_a_block"}))
    unseen = p450.data.iloc[:2].astype(object)
    unseen.iloc[0, 0] = "9"
    with pytest.raises(ValueError, match="9"):
        model.predict(unseen)
    lenient = EnsembleTAN(handle_unknown="marginalize").fit(p450.data, p450.target)
    assert np.isfinite(lenient.predict_proba(unseen)).all()
    with pytest.raises(AttributeError, match="bootstrap=True"):
        model.estimators_samples_  # noqa: B018


def _chain(features):
    m = len(features)
    return np.eye(m, k=1) + np.eye(m, k=-1)


@parametrize_with_checks(
    [
        EnsembleTAN(),
        EnsembleTAN(distributions="density"),
        EnsembleTAN(contact_matrix=_chain),
        EnsembleTAN(members=KDB(k=2), bootstrap=True, n_estimators=3, random_state=0),
    ]
)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)
